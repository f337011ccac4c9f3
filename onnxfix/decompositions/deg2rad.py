import torch


def _onnx_deg2rad(input):
    # x * (pi / 180), in the default float dtype for integer tensors, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.deg2rad(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    return x * 0.017453292519943295
