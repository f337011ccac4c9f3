import torch


def _onnx_erfinv(input):
    # APPROXIMATE: Giles' single-precision polynomial ("Approximating the erfinv function",
    # GPU Computing Gems, 2010), then one Newton step on erf (which ONNX has). Measured error
    # bound: see the ONX rule docs. erfinv(+-1) = +-inf, |x| > 1 gives NaN, as in torch.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.erfinv(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    w = -torch.log((1.0 - x) * (1.0 + x))
    central = w - 2.5
    p = torch.full_like(x, 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * central
    tail = torch.sqrt(w) - 3.0
    q = torch.full_like(x, -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        q = c + q * tail
    y = torch.where(w < 5.0, p, q) * x
    slope = 1.1283791670955126 * torch.exp(-y * y)  # d/dy erf(y) = 2/sqrt(pi) exp(-y^2)
    refined = y - (torch.erf(y) - x) / slope
    y = torch.where(torch.isfinite(refined) & (x.abs() < 0.999), refined, y)
    y = torch.where(x.abs() == 1, x * float("inf"), y)
    return torch.where(x.abs() > 1, torch.full_like(y, float("nan")), y)
