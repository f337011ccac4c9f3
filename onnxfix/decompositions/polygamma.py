import torch


def _onnx_polygamma(n, input):
    # ATen's polygamma kernel: n = 0 is digamma, n = 1 ATen's trigamma (below, step for step in
    # the input's dtype), n >= 2 is (-1)^(n+1) n! zeta(n + 1, x). `n` is a Python int.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.polygamma(n, input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    if n == 0:
        return _onnx_digamma(x)
    compute = x if x.dtype == torch.float64 else x.float()  # half/bfloat16 through float32, as ATen
    if n >= 2:
        # ATen: sign * exp(lgamma(n + 1)) * zeta(n + 1, x); n! is exact here.
        factorial = 1
        for i in range(2, n + 1):  # noqa: ONX603 - n is a Python int (the derivative's order)
            factorial *= i
        scale = torch.full_like(compute, float(factorial) if n % 2 else -float(factorial))
        return (scale * _onnx_zeta(torch.full_like(compute, n + 1.0), compute)).to(x.dtype)
    # trigamma: reflection below 1/2 (sin of pi * x in the input's dtype, as ATen), 6 steps of
    # the recurrence, then the asymptotic series.
    pi = torch.full_like(compute, 3.141592653589793)
    reflect = compute < 0.5
    sin_pi_x = torch.sin(pi * compute)
    result = torch.where(reflect, -(pi * pi) / (sin_pi_x * sin_pi_x), torch.zeros_like(compute))
    y = torch.where(reflect, 1 - compute, compute)
    for _ in range(6):  # noqa: ONX603 - ATen's fixed count
        result = result + 1 / (y * y)
        y = y + 1
    ixx = 1 / (y * y)
    result = result + (1 + 1 / (2 * y) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / y
    return torch.where(reflect, -result, result).to(x.dtype)
