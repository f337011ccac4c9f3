import torch


def _onnx_acosh(input):
    # log(x + sqrt(x^2 - 1)) as log1p(t + sqrt(2 t + t^2)), t = x - 1, which keeps its precision
    # near 1; log(x) + ln 2 above 1e8, where x^2 would overflow. NaN below 1, as torch.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.acosh(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    t = torch.where(x > 1e8, torch.zeros_like(x), x - 1)  # keeps the unused lanes finite
    near = torch.log1p(t + torch.sqrt(2 * t + t * t))
    value = torch.where(x > 1e8, torch.log(x) + 0.6931471805599453, near)
    return torch.where(x < 1, torch.full_like(x, float("nan")), value)  # t (t + 2) > 0 again below -1
