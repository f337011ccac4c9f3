import torch


def _onnx_erfc(input):
    # 1 - erf(x) below x = 0.5 (no cancellation there: the result is above 0.47); above, the
    # scaled erfcx(x) * exp(-x^2), which keeps the tail's precision where 1 - erf(x) rounds to 0.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.erfc(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    tail = _onnx_erfcx(torch.where(x < 0.5, torch.ones_like(x), x)) * torch.exp(-x * x)
    return torch.where(x < 0.5, 1 - torch.erf(x), tail)
