import torch


def _onnx_isposinf(input):
    # x == +inf (always False for integers), as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.isposinf(input)
    return input == float("inf") if input.is_floating_point() else torch.zeros_like(input, dtype=torch.bool)
