import torch


def _onnx_lgamma(input):
    # log|Gamma(x)|, computed in float64 whatever the input dtype (the float32 result is then
    # correctly rounded up to the last bits of libm's lgammaf, which torch calls), rounded to
    # the input's floating dtype (integers promote to the default dtype, as in torch).
    # Fixed operations only (no data-dependent Python branches), so both exporters trace it.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.lgamma(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    z = x.double()
    # x < -0.5: reflection, lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x). sin is taken of
    # the distance to the nearest integer (exact), not of pi * x (which rounds for large |x|).
    reflect = z < -0.5
    t = torch.where(reflect, 1.0 - z, z)
    # -0.5 <= t < 12.5: shift to 2 + p with p = t - round(t) in [-0.5, 0.5] (exact):
    # Gamma(t) = (t-1)(t-2)...(t-k+2) Gamma(2+p) for k = round(t) >= 3, Gamma(2+p) / t for
    # k = 1 and Gamma(2+p) / (t (t+1)) for k = 0. lgamma(2+p) = p * P(p), P the Taylor series of
    # lgamma(2+p)/p at 0 (radius 2, 28 terms reach 2^-56 for |p| <= 0.5): relative accuracy
    # also near the zeros at 1 and 2, where Stirling's formula cancels.
    k = torch.floor(t + 0.5)
    p = t - k
    series = torch.zeros_like(p)
    for c in (1.330476437424449e-10, -2.7595228851242334e-10, 5.731367241678862e-10,
              -1.1921401405860912e-09, 2.4836745438024785e-09, -5.183475041970047e-09,
              1.0838659214896955e-08, -2.2711094608943164e-08, 4.7698101693639804e-08,
              -1.0043224823968099e-07, 2.1207184805554665e-07, -4.492469198764566e-07,
              9.55141213040742e-07, -2.039215753801366e-06, 4.374866789907488e-06,
              -9.439488275268397e-06, 2.050721277567069e-05, -4.492623673813314e-05,
              9.945751278180853e-05, -0.00022315475845357939, 0.0005096695247430425,
              -0.001192753911703261, 0.0028905103307415234, -0.007385551028673986,
              0.020580808427784546, -0.0673523010531981, 0.3224670334241132, 0.42278433509846713):
        series = c + series * p
    product = torch.ones_like(t)
    for i in range(1, 11):  # noqa: ONX603 - fixed count: at most 10 factors below t = 12.5
        product = product * torch.where(k - 2 >= i, t - i, 1.0)
    divisor = torch.where(k <= 1, t, 1.0) * torch.where(k <= 0, t + 1.0, 1.0)
    small = p * series + torch.log(product) - torch.log(divisor.abs())
    # t >= 12.5: Stirling's series; (t - 0.5)(log t - 1) - 0.5 = (t - 0.5) log t - t without
    # inf - inf at t = inf. The first omitted term is below 2^-56 of the result.
    r = 1.0 / t
    r2 = r * r
    tail = r * (1 / 12 + r2 * (-1 / 360 + r2 * (1 / 1260 + r2 * (-1 / 1680 + r2 * (1 / 1188 + r2 * (-691 / 360360))))))
    stirling = (t - 0.5) * (torch.log(t) - 1.0) - 0.5 + 0.9189385332046728 + tail
    positive = torch.where(t < 12.5, small, stirling)
    # Poles (0, negative integers) give +inf: log(0) in `divisor` or sin(pi * 0) = 0 below.
    fraction = z - torch.floor(z + 0.5)
    reflected = torch.log(3.141592653589793 / torch.sin(3.141592653589793 * fraction).abs()) - positive
    result = torch.where(reflect, reflected, positive)
    result = torch.where(torch.isinf(z), torch.full_like(z, float("inf")), result)
    return result.to(x.dtype)
