import torch


def _onnx_adaptive_max_pool1d(input, output_size, return_indices=False):
    # The 2-D helper over a height of 1 (requires _onnx_adaptive_max_pool2d): the same bins
    # along the last dimension, indices the positions along it.
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    result = _onnx_adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        values, indices = result
        return values.squeeze(-2), indices.squeeze(-2)
    return result.squeeze(-2)
