"""Decompositions of the first catalog pass: linalg inverse/solve, cumulative ops, order
statistics, stable sort, searchsorted, elementwise math, erfinv, scatter(reduce=), uneven
adaptive max pooling, cdist."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "linalg_inv", ("torch.linalg.inv", "torch.inverse", "Tensor.inverse"), False,
        ("linalg.inv", "linalg.inv batched", "inverse", "Tensor.inverse"),
        (PYTORCH + "107948", PYTORCH + "136622", PYTORCH + "70299", PYTORCH + "64577",
         "https://github.com/onnx/onnx/issues/3300", "https://github.com/HuangJunJie2017/BEVDet/issues/369"),
        "Gauss-Jordan elimination with partial pivoting, unrolled over the matrix size n (n must "
        "be static; batch sizes may be dynamic; the graph grows with n). Pivoting and rounding "
        "differ from LAPACK, and a singular matrix gives inf/NaN where torch raises.",
        error_bound="max relative error 1e-5 (float32) on well-conditioned matrices up to 8x8 "
        "(tests/test_decompositions.py); grows with the condition number",
    ),
    Decomposition(
        "linalg_solve", ("torch.linalg.solve",), False, ("linalg.solve", "linalg.solve vector"),
        (PYTORCH + "133052",),
        "Gauss-Jordan elimination with partial pivoting on [A | B], unrolled over n (static). "
        "Singular A gives inf/NaN where torch raises.",
        error_bound="max relative error 1e-5 (float32) on well-conditioned systems up to 8x8",
    ),
    Decomposition(
        "cumprod", ("torch.cumprod", "Tensor.cumprod"), True, ("cumprod", "Tensor.cumprod"),
        (PYTORCH + "102948", "https://github.com/onnx/onnx/issues/6590"),
        "Masked product over an (n, n) lower-triangular mask: O(n^2) memory along `dim`; "
        "dynamic sizes work. Exact for integers and zeros/negatives (unlike exp(cumsum(log)))."
    ),
    Decomposition(
        "cummax", ("torch.cummax", "Tensor.cummax"), True, ("cummax", "cummax indices"),
        (PYTORCH + "84496",),
        "Values and indices (last occurrence of the maximum; NaN propagates with its index), "
        "O(n^2) memory along `dim`.",
    ),
    Decomposition(
        "cummin", ("torch.cummin", "Tensor.cummin"), True, ("cummin",), (PYTORCH + "84496",),
        "Values and indices (last occurrence of the minimum; NaN propagates), O(n^2) memory.",
    ),
    Decomposition(
        "kthvalue", ("torch.kthvalue", "Tensor.kthvalue"), True, ("kthvalue",),
        ("https://github.com/onnx/onnx/issues/3586",),
        "Stable ranks by pairwise comparison (O(n^2) memory along `dim`); NaN is the largest "
        "value, as in torch. With ties the index is one of the tied positions (torch does not "
        "specify which).", requires=("sort_rank",),
    ),
    Decomposition(
        "median", ("torch.median", "Tensor.median"), True, ("median dim", "median global"),
        ("https://github.com/onnx/onnx/issues/3586",),
        "Lower median by stable ranks (O(n^2) memory along `dim`); NaN if the values contain "
        "NaN, with the index of the first NaN, as in torch.", requires=("sort_rank",),
    ),
    Decomposition(
        "nanmedian", ("torch.nanmedian", "Tensor.nanmedian"), True, ("nanmedian dim",), (),
        "Lower median of the non-NaN values by stable ranks; NaN if all are NaN.",
        requires=("sort_rank",),
    ),
    Decomposition(
        "mode", ("torch.mode", "Tensor.mode"), True, ("mode dim",), (PYTORCH + "79601",),
        "Pairwise equality counts (O(n^2) memory along `dim`): the smallest of the most frequent "
        "values and its last index, as torch. Inputs containing NaN may differ (NaN != NaN).",
    ),
    Decomposition(
        "sort", ("torch.sort", "Tensor.sort"), True, ("sort stable",), (PYTORCH + "95613",),
        "Stable ranks by pairwise comparison, O(n^2) memory along `dim`; NaN sorts last "
        "(first when descending), ties keep input order.", requires=("sort_rank",),
        when_keyword=("stable", True),
    ),
    Decomposition(
        "argsort", ("torch.argsort", "Tensor.argsort"), True, ("argsort stable ties",),
        (PYTORCH + "95613",), "As _onnx_sort, indices only.", requires=("sort_rank",),
        when_keyword=("stable", True),
    ),
    Decomposition(
        "searchsorted", ("torch.searchsorted",), True,
        ("searchsorted", "searchsorted right", "searchsorted batched"),
        (PYTORCH + "151648", PYTORCH + "126549"),
        "Counts comparisons against every sorted element (O(n) work per value instead of "
        "log n). Same result as torch for sequences without NaN; NaN values land at the end.",
    ),
    Decomposition(
        "hypot", ("torch.hypot", "Tensor.hypot"), True, ("hypot",), (),
        "big * sqrt(1 + (small/big)^2): no overflow; inf wins over NaN as in torch. Agrees with "
        "torch.hypot to 2 ulp.",
    ),
    Decomposition(
        "copysign", ("torch.copysign", "Tensor.copysign"), False, ("copysign",), (),
        "-0.0 in `other` counts as negative (via 1/-0.0 = -inf), but a NaN with its sign bit "
        "set counts as positive: exportable ops cannot read a NaN's sign bit.",
    ),
    Decomposition(
        "erfinv", ("torch.erfinv", "torch.special.erfinv", "Tensor.erfinv"), False,
        ("erfinv", "special.erfinv"), (),
        "Giles' single-precision polynomial plus one Newton step on erf.",
        error_bound="max abs error 2e-6 on [-0.999, 0.999] in float32 (measured by "
        "tests/test_decompositions.py); exact at 0 and +-1 (+-inf), NaN outside [-1, 1]",
    ),
    Decomposition(
        "gcd", ("torch.gcd", "Tensor.gcd"), True, ("gcd",), (),
        "Euclid unrolled for the integer type's worst case (94 steps for int64): a larger graph, "
        "exact results.",
    ),
    Decomposition(
        "lcm", ("torch.lcm", "Tensor.lcm"), True, ("lcm",), (), "|a| / gcd * |b| (0 if either is 0).",
        requires=("gcd",),
    ),
    Decomposition(
        "scatter", ("torch.scatter", "Tensor.scatter"), True,
        ("scatter reduce=multiply", "scatter reduce=add"), (),
        "reduce='multiply'/'add' become scatter_reduce('prod'/'sum', include_self=True).",
        when_present=("reduce", 99),
    ),
    Decomposition(
        "adaptive_max_pool2d", ("torch.nn.functional.adaptive_max_pool2d",), True,
        ("adaptive_max_pool2d non-divisible",),
        (PYTORCH + "75383", PYTORCH + "61172", PYTORCH + "60452"),
        "One amax per output cell over torch's bins; unrolled over the output cells, so the "
        "input's H, W must be static. Indices (return_indices=True) match torch's (first maximum).",
    ),
    Decomposition(
        "cdist", ("torch.cdist",), False, ("cdist p=1", "cdist p=2", "cdist p=inf"),
        ("https://github.com/onnx/onnx/issues/3327",),
        "Broadcast differences, O(P*R*M) memory; `p` must be a number. Bit-identical for p=0 "
        "and p=inf; for other p eager cdist sums in another order (and for p=2 on large inputs "
        "uses a matrix-multiply formula): the two agree to float rounding.",
    ),
)
SUPPORT: tuple[str, ...] = ("sort_rank",)  # helpers that decompose nothing on their own
