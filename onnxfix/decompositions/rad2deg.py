import torch


def _onnx_rad2deg(input):
    # x * (180 / pi), in the default float dtype for integer tensors, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.rad2deg(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    return x * 57.29577951308232
