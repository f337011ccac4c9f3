import torch


def _onnx_erfcx(input):
    # Scaled complementary error function exp(x^2) * erfc(x), an approximation: for |x| < 1.5
    # directly as exp(x^2) * (1 - erf(x)); above, the continued fraction
    # 1 / (sqrt(pi) (y + (1/2) / (y + 1 / (y + (3/2) / (y + ...))))) with 32 terms, evaluated
    # from the tail (stable; no cancellation). Negative x: 2 exp(x^2) - erfcx(-x) (inf below
    # about -9.3 in float32, as torch).
    # Both exporters run the decomposition: dynamo's own translation of erfcx is off by up to 0.14 (measured, torch 2.13).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.special.erfcx(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    y = x.abs()
    far = torch.where(y < 1.5, torch.full_like(y, 1.5), y)  # keeps the unused lanes finite
    f = far
    for k in range(32, 0, -1):  # noqa: ONX603 - a fixed number of continued-fraction terms
        f = far + (k / 2) / f
    tail = 1 / (1.7724538509055159 * f)
    near = torch.exp(y * y) * (1 - torch.erf(y))
    positive = torch.where(y < 1.5, near, tail)
    return torch.where(x < 0, 2 * torch.exp(x * x) - positive, positive)
