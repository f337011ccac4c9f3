import torch


def _onnx_exp2(input):
    # 2 ** x, in the default float dtype for integer tensors, as torch.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.exp2(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    return torch.pow(torch.full_like(x, 2.0), x)
