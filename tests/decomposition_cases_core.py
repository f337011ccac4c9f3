"""Export cases of the core decompositions (onnxfix/decompositions/registry_core.py), read by
tests/decomposition_exports.py. Each family has one such file: decomposition_cases_<family>.py.

CASES: key -> (original expression, helper expression, inputs(g, batch) -> tuple, dynamic batch?)
PARAMS: key -> forward parameter names used by the expressions (default "a")
TOLERANCE: key -> relative tolerance in onnxruntime (default 1e-4)
MULTI_OUTPUT: keys whose expression yields two outputs
STATIC_INPUTS: key -> positions of inputs whose first dimension is not the dynamic batch
"""

import torch

NAN = float("nan")


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def ties(g, *shape):
    return torch.randint(-2, 3, shape, generator=g).float()


def with_nan(g, *shape):
    x = ties(g, *shape)
    x[..., 1] = NAN if x.shape[-1] > 1 else x[..., 1]
    return x


def well_conditioned(g, batch, n):
    return torch.randn(batch, n, n, generator=g) + n * torch.eye(n)


# key: (original expression, helper expression, inputs(g, batch) -> tuple, dynamic batch?)
CASES = {
    "linalg_inv": ("torch.linalg.inv(a)", "_onnx_linalg_inv(a)", lambda g, b: (well_conditioned(g, b, 4),), True),
    "linalg_solve": ("torch.linalg.solve(a, c) + torch.linalg.solve(a, c.transpose(-2, -1), left=False).transpose(-2, -1)",
                     "_onnx_linalg_solve(a, c) + _onnx_linalg_solve(a, c.transpose(-2, -1), left=False).transpose(-2, -1)", lambda g, b: (well_conditioned(g, b, 3), randn(g, b, 3, 2)), True),
    "cumprod": ("torch.cumprod(a, 1)", "_onnx_cumprod(a, 1)", lambda g, b: (ties(g, b, 6),), True),
    "cummax": ("*torch.cummax(a, 1)", "*_onnx_cummax(a, 1)", lambda g, b: (with_nan(g, b, 6),), True),
    "cummin": ("a.cummin(1).indices", "_onnx_cummin(a, 1).indices", lambda g, b: (ties(g, b, 6),), True),
    "kthvalue": ("torch.kthvalue(a, 2, 1).values", "_onnx_kthvalue(a, 2, 1).values", lambda g, b: (with_nan(g, b, 5),), True),
    "median": ("torch.median(a, 1).values + torch.median(a)", "_onnx_median(a, 1).values + _onnx_median(a)", lambda g, b: (ties(g, b, 5),), True),
    "nanmedian": ("torch.nanmedian(a, 1).values", "_onnx_nanmedian(a, 1).values", lambda g, b: (with_nan(g, b, 5),), True),
    "mode": ("*torch.mode(a, 1)", "*_onnx_mode(a, 1)", lambda g, b: (ties(g, b, 6),), True),
    "sort": ("torch.sort(a, dim=1, stable=True).indices", "_onnx_sort(a, dim=1, stable=True).indices", lambda g, b: (with_nan(g, b, 6),), True),
    "argsort": ("torch.argsort(a, dim=1, descending=True, stable=True)", "_onnx_argsort(a, dim=1, descending=True, stable=True)", lambda g, b: (ties(g, b, 6),), True),
    "searchsorted": ("torch.searchsorted(s, a, right=True)", "_onnx_searchsorted(s, a, right=True)", lambda g, b: (ties(g, b, 5), ties(g, 6).sort().values), True),
    "hypot": ("torch.hypot(a, c)", "_onnx_hypot(a, c)", lambda g, b: (randn(g, b, 5) * 1e3, randn(g, b, 5)), True),
    "copysign": ("torch.copysign(a, c)", "_onnx_copysign(a, c)", lambda g, b: (randn(g, b, 5), ties(g, b, 5)), True),
    "erfinv": ("torch.erfinv(a)", "_onnx_erfinv(a)", lambda g, b: (torch.rand(b, 50, generator=g) * 1.98 - 0.99,), True),
    "gcd": ("torch.gcd(i, j)", "_onnx_gcd(i, j)", lambda g, b: (torch.randint(-60, 60, (b, 8), generator=g), torch.randint(-60, 60, (b, 8), generator=g)), True),
    "lcm": ("torch.lcm(i, j)", "_onnx_lcm(i, j)", lambda g, b: (torch.randint(-30, 30, (b, 8), generator=g), torch.randint(-30, 30, (b, 8), generator=g)), True),
    "scatter": ("torch.scatter(a, 1, i, c, reduce='multiply')", "_onnx_scatter(a, 1, i, c, reduce='multiply')", lambda g, b: (randn(g, b, 5), torch.randint(0, 5, (b, 8), generator=g), randn(g, b, 8)), True),
    "adaptive_max_pool2d": ("torch.nn.functional.adaptive_max_pool2d(a, (3, 3))", "_onnx_adaptive_max_pool2d(a, (3, 3))", lambda g, b: (randn(g, b, 2, 8, 7),), True),
    "cdist": ("torch.cdist(a, c, p=1)", "_onnx_cdist(a, c, p=1)", lambda g, b: (randn(g, b, 5, 3), randn(g, b, 4, 3)), True),
}
TWO = ("linalg_solve", "hypot", "copysign", "cdist")
PARAMS = {**{k: "a, c" for k in TWO}, "searchsorted": "a, s", "gcd": "i, j", "lcm": "i, j", "scatter": "a, i, c"}
TOLERANCE = {"erfinv": 5e-6}
MULTI_OUTPUT = ("cummax", "mode")
STATIC_INPUTS = {"searchsorted": (1,)}  # the sorted sequence is 1-D and keeps its size
