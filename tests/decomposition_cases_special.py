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


CASES = {
    "lgamma": ("torch.lgamma(a)", "_onnx_lgamma(a)", lambda g, b: (spread(g, b),), True),
    "digamma": ("torch.digamma(a)", "_onnx_digamma(a)", lambda g, b: (spread(g, b),), True),
}
TOLERANCE = {"lgamma": 1e-6, "digamma": 1e-6}
