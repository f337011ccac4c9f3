import torch


def _onnx_zeta(input, other):
    # Hurwitz zeta(x, q) = sum_k (q + k)^-x: ATen's zeta (Cephes), evaluated in float64 like
    # ATen's CPU kernel (its accumulation type for float32 is double), then rounded. Its two
    # data-dependent loops run a fixed number of times with torch.where freezing each element
    # once ATen would have returned: 40 direct terms (enough for q > -31; below, NaN) and the
    # 12 Euler-Maclaurin terms.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.special.zeta(input, other)
    if not isinstance(input, torch.Tensor):
        input = torch.tensor(input, dtype=other.dtype if other.is_floating_point() else torch.get_default_dtype())
    if not isinstance(other, torch.Tensor):
        other = torch.tensor(other, dtype=input.dtype if input.is_floating_point() else torch.get_default_dtype())
    dtype = torch.result_type(input, other)
    dtype = dtype if dtype.is_floating_point else torch.get_default_dtype()
    x, q = torch.broadcast_tensors(input.double(), other.double())
    machep = 1.11022302462515654042e-16
    negative_x = -x  # once, not per step (the exported graph is 40 steps long)
    s = torch.pow(q, negative_x)
    a = q
    b = torch.zeros_like(s)
    done = torch.zeros_like(s, dtype=torch.bool)
    # "while ((i < 9) || (a <= 9)) { a += 1; b = a^-x; s += b; if (|b| < MACHEP s) return s; }"
    # (ATen's -MACHEP s < b < MACHEP s is |b| < MACHEP s, also for NaN, infinities and s <= 0.)
    for i in range(40):  # noqa: ONX603 - fixed count: 9 steps for q > 0, up to 40 for q > -31
        running = None if i < 9 else a <= 9.0  # i is a Python int
        active = ~done if running is None else ~done & running
        a = torch.where(active, a + 1.0, a)
        b = torch.where(active, torch.pow(a, negative_x), b)
        s = torch.where(active, s + b, s)
        # done | (active & small) is done | (running & small): where done is True both are.
        small = torch.abs(b) < machep * s
        done = done | (small if running is None else running & small)
    out_of_range = ~done & (a <= 9.0)  # ATen would still be summing: q <= -31
    # Euler-Maclaurin tail with ATen's A[] = (2k)! / B_2k.
    w = a
    s = torch.where(done, s, s + b * w / (x - 1.0))
    s = torch.where(done, s, s - 0.5 * b)
    factor = torch.ones_like(s)
    k = 0.0
    for coefficient in (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                        7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                        -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18):
        factor = factor * (x + k)
        b = b / w
        t = factor * b / coefficient
        s = torch.where(done, s, s + t)
        done = done | (torch.abs(t / s) < machep)
        k += 1.0
        factor = factor * (x + k)
        b = b / w
        k += 1.0
    # Domain, in ATen's order: x == 1 -> inf; x < 1 -> NaN; q <= 0: integer q -> inf,
    # non-integer x -> NaN.
    inf, nan = torch.full_like(s, float("inf")), torch.full_like(s, float("nan"))
    s = torch.where(out_of_range, nan, s)
    nonpositive = q <= 0
    s = torch.where(nonpositive & (x != torch.floor(x)), nan, s)
    s = torch.where(nonpositive & (q == torch.floor(q)), inf, s)
    s = torch.where(x < 1, nan, s)
    s = torch.where(x == 1, inf, s)
    return s.to(dtype)
