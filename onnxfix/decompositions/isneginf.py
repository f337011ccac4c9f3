import torch


def _onnx_isneginf(input):
    # Only floating types hold -inf.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.isneginf(input)
    if not input.is_floating_point():
        return torch.zeros_like(input, dtype=torch.bool)
    return input == -float("inf")
