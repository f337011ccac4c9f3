import torch


def _onnx_log_ndtr(input):
    # log of the standard normal CDF, ATen's branches: below x = -1, log(erfcx(-t) / 2) - t^2
    # (t = x / sqrt 2: no underflow deep in the tail); above, log1p(-erfc(t) / 2), with
    # erfc(t) = erfcx(t) exp(-t^2) for t >= 0 (keeps its relative precision) and 1 - erf(t)
    # below. erfcx is _onnx_erfcx's approximation.
    # Both exporters run the decomposition: dynamo's own translation of log_ndtr gives inf where the result is finite (measured, torch 2.13).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.special.log_ndtr(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    t = x * 0.7071067811865476
    erfc = torch.where(t >= 0, _onnx_erfcx(t) * torch.exp(-t * t), 1 - torch.erf(t))
    upper = torch.log1p(-erfc / 2)
    lower = torch.log(_onnx_erfcx(-t) / 2) - t * t
    return torch.where(x < -1, lower, upper)
