import torch


def _onnx_adaptive_avg_pool1d(input, output_size):
    # The 1-D pool is the 2-D pool over a height of 1: the same bins along the last dimension.
    if isinstance(output_size, (list, tuple)):
        output_size = output_size[0]
    return _onnx_adaptive_avg_pool2d(input.unsqueeze(-2), (1, output_size)).squeeze(-2)
