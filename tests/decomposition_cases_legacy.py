"""Export cases of the legacy-only decompositions (onnxfix/decompositions/registry_legacy.py), read
by tests/decomposition_exports.py (format: tests/decomposition_cases_core.py). The originals fail
(or are silently wrong) with the legacy exporter only; each helper must export with both."""

import torch

NAN, INF = float("nan"), float("inf")


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def ints(g, lo, hi, *shape):
    return torch.randint(lo, hi, shape, generator=g)


def signs(g, *shape):
    return torch.where(torch.randint(0, 2, shape, generator=g) == 0, -1, 1)


def specials(g, *shape):
    x = torch.randn(*shape, generator=g) * 3
    x[..., 1] = INF
    x[..., 2] = -INF
    x[..., 3] = 0.0
    return x


def with_nan(g, *shape):
    x = torch.randn(*shape, generator=g)
    x[..., 1] = NAN
    return x


def positive(g, *shape):
    return torch.rand(*shape, generator=g) * 3 + 0.01


CASES = {
    # ONX518: silently wrong in legacy
    "floor_divide": ("torch.floor_divide(i, j)", "_onnx_floor_divide(i, j)", lambda g, b: (ints(g, -50, 50, b, 8), ints(g, 1, 6, b, 8) * signs(g, b, 8)), True),
    "bitwise_right_shift": ("torch.bitwise_right_shift(i, j)", "_onnx_bitwise_right_shift(i, j)", lambda g, b: (ints(g, -1000, 1000, b, 8), ints(g, 0, 70, b, 8)), True),
    "softplus": ("torch.nn.functional.softplus(a, beta=2.0, threshold=1.0)", "_onnx_softplus(a, beta=2.0, threshold=1.0)", lambda g, b: (randn(g, b, 10) * 3,), True),
    "index_add": ("a.index_add(1, i, c)", "_onnx_index_add(a, 1, i, c)", lambda g, b: (randn(g, b, 5), ints(g, 0, 5, 8), randn(g, b, 8)), True),
    "index_put": ("a.index_put((i,), c, accumulate=True)", "_onnx_index_put(a, (i,), c, accumulate=True)", lambda g, b: (randn(g, 5, 3), ints(g, -5, 5, 8), randn(g, 8, 3)), False),
    # ONX517: legacy export fails
    "logaddexp": ("torch.logaddexp(a, c)", "_onnx_logaddexp(a, c)", lambda g, b: (specials(g, b, 8), randn(g, b, 8)), True),
    "logaddexp2": ("torch.logaddexp2(a, c)", "_onnx_logaddexp2(a, c)", lambda g, b: (specials(g, b, 8), randn(g, b, 8)), True),
    "logcumsumexp": ("torch.logcumsumexp(a, 1)", "_onnx_logcumsumexp(a, 1)", lambda g, b: (randn(g, b, 7) * 5,), True),
    "nansum": ("torch.nansum(a, 1)", "_onnx_nansum(a, 1)", lambda g, b: (with_nan(g, b, 6),), True),
    "nanmean": ("torch.nanmean(a, 1, keepdim=True)", "_onnx_nanmean(a, 1, keepdim=True)", lambda g, b: (with_nan(g, b, 6),), True),
    "count_nonzero": ("torch.count_nonzero(a, dim=1)", "_onnx_count_nonzero(a, dim=1)", lambda g, b: (ints(g, -1, 2, b, 7).float(),), True),
    "trace": ("torch.trace(a)", "_onnx_trace(a)", lambda g, b: (randn(g, 4, 4),), False),
    "diff": ("torch.diff(a, n=2, dim=1, prepend=a[:, :1])", "_onnx_diff(a, n=2, dim=1, prepend=a[:, :1])", lambda g, b: (randn(g, b, 6),), True),
    "frac": ("torch.frac(a * 3)", "_onnx_frac(a * 3)", lambda g, b: (randn(g, b, 9),), True),
    "heaviside": ("torch.heaviside(a, c)", "_onnx_heaviside(a, c)", lambda g, b: (ints(g, -1, 2, b, 8).float(), randn(g, b, 8)), True),
    "signbit": ("torch.signbit(a)", "_onnx_signbit(a)", lambda g, b: (specials(g, b, 6) * torch.tensor([1.0, 1, 1, -1, 1, 1]),), True),
    "isneginf": ("torch.isneginf(a)", "_onnx_isneginf(a)", lambda g, b: (specials(g, b, 6),), True),
    "sgn": ("torch.sgn(a)", "_onnx_sgn(a)", lambda g, b: (specials(g, b, 6),), True),
    "float_power": ("torch.float_power(a, 3)", "_onnx_float_power(a, 3)", lambda g, b: (randn(g, b, 6),), True),
    "ldexp": ("torch.ldexp(a, i)", "_onnx_ldexp(a, i)", lambda g, b: (randn(g, b, 6), ints(g, -5, 6, b, 6)), True),
    "sinc": ("torch.special.sinc(a)", "_onnx_sinc(a)", lambda g, b: (randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]),), True),
    "xlogy": ("torch.special.xlogy(a, c)", "_onnx_xlogy(a, c)", lambda g, b: (randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]), positive(g, b, 8)), True),
    "xlog1py": ("torch.special.xlog1py(a, c)", "_onnx_xlog1py(a, c)", lambda g, b: (randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]), positive(g, b, 8)), True),
    "entr": ("torch.special.entr(a)", "_onnx_entr(a)", lambda g, b: (randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]),), True),
    "ndtr": ("torch.special.ndtr(a)", "_onnx_ndtr(a)", lambda g, b: (randn(g, b, 8) * 3,), True),
    "erfcx": ("torch.special.erfcx(a)", "_onnx_erfcx(a)", lambda g, b: (randn(g, b, 12) * 4,), True),
    "log_ndtr": ("torch.special.log_ndtr(a)", "_onnx_log_ndtr(a)", lambda g, b: (randn(g, b, 12) * 8,), True),
    "kron": ("torch.kron(a, c)", "_onnx_kron(a, c)", lambda g, b: (randn(g, b, 3), randn(g, 3, 2)), True),
    "vecdot": ("torch.linalg.vecdot(a, c)", "_onnx_vecdot(a, c)", lambda g, b: (randn(g, b, 4, 3), randn(g, b, 4, 3)), True),
    "dist": ("torch.dist(a, c, p=3)", "_onnx_dist(a, c, p=3)", lambda g, b: (randn(g, b, 4), randn(g, b, 4)), True),
    "matrix_power": ("torch.linalg.matrix_power(a, 5)", "_onnx_matrix_power(a, 5)", lambda g, b: (randn(g, b, 3, 3) * 0.5,), True),
    "multi_dot": ("torch.linalg.multi_dot([a, c, a.T])", "_onnx_multi_dot([a, c, a.T])", lambda g, b: (randn(g, 3, 4), randn(g, 4, 4)), False),
    "quantile": ("torch.quantile(a, c, dim=1, keepdim=True)", "_onnx_quantile(a, c, dim=1, keepdim=True)", lambda g, b: (randn(g, b, 7), torch.tensor([0.1, 0.5, 0.9])), True),
    "nanquantile": ("torch.nanquantile(a, 0.3, dim=1, interpolation='midpoint')", "_onnx_nanquantile(a, 0.3, dim=1, interpolation='midpoint')", lambda g, b: (with_nan(g, b, 7),), True),
    "trapezoid": ("torch.trapezoid(a, dim=1)", "_onnx_trapezoid(a, dim=1)", lambda g, b: (randn(g, b, 6),), True),
    "cumulative_trapezoid": ("torch.cumulative_trapezoid(a, dim=1)", "_onnx_cumulative_trapezoid(a, dim=1)", lambda g, b: (randn(g, b, 6),), True),
    "renorm": ("torch.renorm(a, 2, 0, 1.0)", "_onnx_renorm(a, 2, 0, 1.0)", lambda g, b: (randn(g, b, 5),), True),
    "rms_norm": ("torch.nn.functional.rms_norm(a, (5,), c)", "_onnx_rms_norm(a, (5,), c)", lambda g, b: (randn(g, b, 5), randn(g, 5)), True),
}
PARAMS = {
    "floor_divide": "i, j", "bitwise_right_shift": "i, j", "index_add": "a, i, c", "index_put": "a, i, c",
    "logaddexp": "a, c", "logaddexp2": "a, c", "heaviside": "a, c", "ldexp": "a, i", "xlogy": "a, c",
    "xlog1py": "a, c", "kron": "a, c", "vecdot": "a, c", "multi_dot": "a, c", "quantile": "a, c", "dist": "a, c", "rms_norm": "a, c",
}
TOLERANCE = {"erfcx": 2e-6, "log_ndtr": 6e-6}  # documented approximation bounds
MULTI_OUTPUT = ()
# Inputs whose first dimension is not the dynamic batch: index vectors, kron's right operand,
# rms_norm's weight; trace's square matrix and index_put (it indexes the first dimension) are
# static cases.
STATIC_INPUTS = {"index_add": (1,), "index_put": (0, 1, 2), "kron": (1,), "rms_norm": (1,), "trace": (0,), "multi_dot": (0, 1), "quantile": (1,)}
