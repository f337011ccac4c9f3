import torch


def _onnx_digamma(input):
    # ATen's calc_digamma (Cephes psi), step for step in the input's dtype, with the data-
    # dependent loop unrolled to its worst case and torch.where selecting per element.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.digamma(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    compute = x if x.dtype == torch.float64 else x.float()  # half/bfloat16 go through float32, as in ATen
    pi = 3.141592653589793
    # x < 0: psi(x) = psi(1 - x) - pi / tan(pi * r), r = x - trunc(x) = x - ceil(x) the
    # fractional part (exact; more accurate than pi * x). ATen evaluates this term in float64
    # also for float32; cos/sin because ONNX Runtime has no float64 Tan.
    negative = compute < 0
    r = (compute - torch.ceil(compute)).double()
    reflection = (pi * torch.cos(pi * r) / torch.sin(pi * r)).to(compute.dtype)
    y = torch.where(negative, 1 - compute, compute)
    # "while (x < 10) { result -= 1 / x; x += 1; }": at most 10 steps for y > 0.
    result = torch.zeros_like(y)
    for _ in range(10):  # noqa: ONX603 - fixed count: the loop's worst case (0 < y < 1)
        step = y < 10
        result = torch.where(step, result - 1 / y, result)
        y = torch.where(step, y + 1, y)
    # Asymptotic series (skipped from 1e17 on, as in ATen), and psi(10) as a constant.
    z = 1 / (y * y)
    poly = torch.zeros_like(z)
    for c in (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
              -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
              8.33333333333333333333e-2):
        poly = poly * z + c
    series = torch.where(y < 1.0e17, z * poly, torch.zeros_like(z))
    psi = torch.where(y == 10, result + 2.25175258906672110764, result + torch.log(y) - 0.5 / y - series)
    psi = torch.where(negative, psi - reflection, psi)
    # x = +-0 gives -+inf (the sign of -x, as torch); negative integers (and -inf) give NaN.
    psi = torch.where(compute == 0, -1 / compute, psi)
    psi = torch.where(negative & (compute == torch.ceil(compute)), torch.full_like(psi, float("nan")), psi)
    return psi.to(x.dtype)
