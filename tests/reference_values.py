"""True values for the decomposition tests, the same on every CPU.

ATen picks a kernel per CPU capability (ATEN_CPU_CAPABILITY: default, avx2, avx512) and those
kernels round differently, so a test that compares a helper's bits with torch's passes on one
CPU and fails on another. The tests measure each helper against the true value instead:
- float32 (and half) inputs: torch's float64 kernel on the same points. Its own error, a few
  float64 ulp, is 2^-29 of a float32 ulp: the reference is the true value for float32's purposes.
- float64 inputs: mpmath at 96 bits on a fixed subsample of the points (mpmath is slow).
"""

from __future__ import annotations

import math

import mpmath
import torch

PRECISION = 96
SUBSAMPLE = 3000


def subsample(x: torch.Tensor, count: int = SUBSAMPLE, keep_last: int = 0) -> torch.Tensor:
    """A fixed, evenly spread subset of the 1-D `x`, plus its last `keep_last` points (the special
    points the grids append)."""
    if x.numel() <= count + keep_last:
        return x
    body = x[: x.numel() - keep_last] if keep_last else x
    picked = body[torch.linspace(0, body.numel() - 1, count).round().long()]
    return torch.cat([picked, x[x.numel() - keep_last:]]) if keep_last else picked


def _lgamma(v):
    return mpmath.inf if v <= 0 and v == int(v) else mpmath.loggamma(v).real


def _digamma(v):
    return mpmath.nan if v <= 0 and v == int(v) else mpmath.digamma(v)


def _ndtri(y):
    if y <= 0 or y >= 1:
        return mpmath.ninf if y == 0 else (mpmath.inf if y == 1 else mpmath.nan)
    # Newton's method on ncdf from a float64 start: mpmath has no inverse normal CDF, and
    # sqrt(2) erfinv(2y - 1) loses the tail to the subtraction.
    z = mpmath.mpf(float(torch.special.ndtri(torch.tensor(y, dtype=torch.float64))))
    for _ in range(3):
        z -= (mpmath.ncdf(z) - y) / mpmath.npdf(z)
    return z


def _scaled_bessel(order):
    return lambda v: mpmath.besseli(order, v) * mpmath.exp(-abs(v))


MPMATH = {
    "lgamma": _lgamma,
    "digamma": _digamma,
    "i0": lambda v: mpmath.besseli(0, v),
    "i1": lambda v: mpmath.besseli(1, v),
    "i0e": _scaled_bessel(0),
    "i1e": _scaled_bessel(1),
    "ndtri": _ndtri,
    "bessel_j0": lambda v: mpmath.besselj(0, v),
}
TORCH = {
    "lgamma": torch.lgamma,
    "digamma": torch.digamma,
    "i0": torch.special.i0,
    "i1": torch.special.i1,
    "i0e": torch.special.i0e,
    "i1e": torch.special.i1e,
    "ndtri": torch.special.ndtri,
    "bessel_j0": torch.special.bessel_j0,
}


def _mpmath_values(function, x: torch.Tensor) -> torch.Tensor:
    def one(v: float) -> float:
        if not math.isfinite(v):
            return math.nan  # replaced by the caller
        try:
            return float(function(mpmath.mpf(v)))
        except (ValueError, ZeroDivisionError):  # mpmath raises at poles
            return math.nan
    with mpmath.workprec(PRECISION):
        return torch.tensor([one(v) for v in x.double().tolist()], dtype=torch.float64)


def true_values(key: str, x: torch.Tensor) -> torch.Tensor:
    """The function `key` at `x` in float64. Infinite and NaN inputs take torch's float64 value
    (the limits, which mpmath does not evaluate)."""
    if x.dtype != torch.float64:
        return TORCH[key](x.double())
    values = _mpmath_values(MPMATH[key], x.double())
    outside = ~torch.isfinite(x)
    values[outside] = TORCH[key](x[outside])
    return values


def _hurwitz_zeta(s, a, direct=80, corrections=40):
    """sum (a + n)^-s over n >= 0: `direct` terms, then the Euler-Maclaurin tail. (mpmath.zeta
    loses up to 9 digits for large a even at 256 bits.)"""
    total = mpmath.fsum((a + n) ** -s for n in range(direct))
    b = a + direct
    total += b ** (1 - s) / (s - 1) + b ** -s / 2
    rising, power = s, b ** (-s - 1)
    for k in range(1, corrections + 1):
        total += mpmath.bernoulli(2 * k) / mpmath.factorial(2 * k) * rising * power
        rising *= (s + 2 * k - 1) * (s + 2 * k)
        power /= b * b
    return total


def true_zeta(x: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Hurwitz zeta for x > 1, q > 0 (x <= 100); float64 pairs through mpmath."""
    if x.dtype != torch.float64:
        return torch.special.zeta(x.double(), q.double())
    with mpmath.workprec(PRECISION):
        values = [_hurwitz_zeta(mpmath.mpf(s), mpmath.mpf(a)) if s > 1 else mpmath.zeta(s, a)
                  for s, a in zip(x.tolist(), q.tolist())]
        return torch.tensor([float(v) for v in values], dtype=torch.float64)


def true_mvlgamma(x: torch.Tensor, p: int) -> torch.Tensor:
    if x.dtype != torch.float64:
        return torch.mvlgamma(x.double(), p)
    with mpmath.workprec(PRECISION):
        constant = p * (p - 1) / 4 * mpmath.log(mpmath.pi)
        return torch.tensor([float(constant + sum(mpmath.loggamma(v - i / 2) for i in range(p)))
                             for v in x.tolist()], dtype=torch.float64)


def representable(true: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Where the true value is finite in `dtype` (not NaN, not past its largest float)."""
    return torch.isfinite(true) & torch.isfinite(true.to(dtype))


def ulps(got: torch.Tensor, true: torch.Tensor, floor: float) -> torch.Tensor:
    """|got - true| in units of eps(got's dtype) * max(|true|, floor), where the true value is
    representable in got's dtype."""
    keep = representable(true, got.dtype)
    g, t = got[keep].double(), true[keep].double()
    return (g - t).abs() / (t.abs().clamp(min=floor) * torch.finfo(got.dtype).eps)


def excess_ulps(got: torch.Tensor, kernel: torch.Tensor, true: torch.Tensor, floor: float) -> torch.Tensor:
    """How many ulps (as in `ulps`) `got` is further from the true value than `kernel` is, point by
    point: a helper that reproduces ATen's formula inherits its error where the formula is
    ill-conditioned (near the zeros of the function, at huge arguments), and must add no more
    than rounding there, whichever CPU kernel torch picked."""
    keep = representable(true, got.dtype)
    g, k, t = got[keep].double(), kernel[keep].double(), true[keep].double()
    return ((g - t).abs() - (k - t).abs()) / (t.abs().clamp(min=floor) * torch.finfo(got.dtype).eps)
