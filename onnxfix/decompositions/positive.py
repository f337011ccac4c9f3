import torch


def _onnx_positive(input):
    # the input itself, as ATen (which refuses bool tensors).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.positive(input)
    return input
