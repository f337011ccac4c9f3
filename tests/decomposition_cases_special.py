"""Export cases of the special-function decompositions (onnxfix/decompositions/registry_special.py),
read by tests/decomposition_exports.py (format: tests/decomposition_cases_core.py).

Inputs cover the regions each helper selects between with torch.where (recurrence, series,
reflection), poles and infinities.
"""

import torch

NAN, INF = float("nan"), float("inf")


def spread(g, batch, n=40, scale=8.0):
    """Values of both signs over several decades, plus poles, zeros and infinities."""
    x = torch.randn(batch, n, generator=g) * scale
    x[:, :4] = torch.rand(batch, 4, generator=g) * 3e3  # Stirling / asymptotic region
    x[:, 4:8] = torch.rand(batch, 4, generator=g) * 1e-3  # near 0
    x[:, 8] = -torch.randint(0, 6, (batch,), generator=g).float()  # poles
    x[:, 9] = 1.0
    x[:, 10] = 2.0
    x[:, 11] = INF
    x[:, 12] = -INF
    x[:, 13] = NAN
    x[:, 14] = -0.0
    x[:, 15] = 10.0
    return x


def orders(g, batch, n=24):
    """zeta's x >= 1 (with x == 1 and integers) and q over (-5, 20) with poles."""
    x = 1 + torch.rand(batch, n, generator=g) * 9
    x[:, :6] = torch.randint(1, 8, (batch, 6), generator=g).float()
    q = torch.randn(batch, n, generator=g) * 6 + 4
    q[:, 6] = -torch.randint(0, 4, (batch,), generator=g).float()
    q[:, 7] = INF
    q[:, 8] = NAN
    return x, q


def negatives(g, batch, n=30):
    x = torch.randn(batch, n, generator=g) * 8
    x[:, :3] = -torch.randint(0, 4, (batch, 3), generator=g).float()
    return (x,)


def bessel(g, batch, n=30):
    """Both Chebyshev ranges (|x| <= 8, > 8), both signs, the boundary 8, 0, infinities, NaN."""
    x = torch.randn(batch, n, generator=g) * 12
    x[:, :5] = torch.tensor([8.0, -8.0, 0.0, INF, NAN])
    return x


def probabilities(g, batch, n=30):
    """Central region, both tails (down to 1e-30), 0, 1, outside [0, 1], NaN."""
    p = torch.rand(batch, n, generator=g)
    p[:, :4] = 10 ** (-30 * torch.rand(batch, 4, generator=g))
    p[:, 4:8] = 1 - 10 ** (-7 * torch.rand(batch, 4, generator=g))
    p[:, 8:13] = torch.tensor([0.0, 1.0, -0.5, 1.5, NAN])
    return p


def frexp_values(g, batch, n=30):
    """Several decades, both signs, powers of two, zeros, subnormals, infinities, NaN."""
    x = torch.randn(batch, n, generator=g) * 10 ** torch.randint(-30, 30, (batch, n), generator=g).float()
    x[:, :9] = torch.tensor([0.0, -0.0, INF, -INF, NAN, 1.0, 0.5, 2.0**-140, -(2.0**100)])
    return x


CASES = {
    "lgamma": ("torch.lgamma(a)", "_onnx_lgamma(a)", lambda g, b: (spread(g, b),), True),
    "digamma": ("torch.digamma(a)", "_onnx_digamma(a)", lambda g, b: (spread(g, b),), True),
    "zeta": ("torch.special.zeta(a, c)", "_onnx_zeta(a, c)", orders, True),
    "polygamma": ("*(torch.polygamma(1, a), torch.special.polygamma(3, a))",
                  "*(_onnx_polygamma(1, a), _onnx_polygamma(3, a))", negatives, True),
    "mvlgamma": ("torch.mvlgamma(a, 3) + torch.special.multigammaln(a, 1)", "_onnx_mvlgamma(a, 3) + _onnx_mvlgamma(a, 1)",
                 lambda g, b: (1.001 + torch.rand(b, 20, generator=g) * 30,), True),
    "i0": ("torch.special.i0(a) + torch.i0(a * 3)", "_onnx_i0(a) + _onnx_i0(a * 3)", lambda g, b: (bessel(g, b),), True),
    "i0e": ("torch.special.i0e(a)", "_onnx_i0e(a)", lambda g, b: (bessel(g, b),), True),
    "i1": ("torch.special.i1(a)", "_onnx_i1(a)", lambda g, b: (bessel(g, b),), True),
    "i1e": ("torch.special.i1e(a)", "_onnx_i1e(a)", lambda g, b: (bessel(g, b),), True),
    "ndtri": ("torch.special.ndtri(a)", "_onnx_ndtri(a)", lambda g, b: (probabilities(g, b),), True),
    "bessel_j0": ("torch.special.bessel_j0(a)", "_onnx_bessel_j0(a)", lambda g, b: (bessel(g, b) * 2,), True),
    "frexp": ("*torch.frexp(a)", "*_onnx_frexp(a)", lambda g, b: (frexp_values(g, b),), True),
}
PARAMS = {"zeta": "a, c"}
MULTI_OUTPUT = ("polygamma", "frexp")
TOLERANCE = {"lgamma": 1e-6, "digamma": 1e-6, "zeta": 1e-6, "polygamma": 1e-6, "mvlgamma": 1e-6, "i0": 1e-6, "i0e": 1e-6, "i1": 1e-6, "i1e": 1e-6, "ndtri": 1e-6, "bessel_j0": 1e-6}
