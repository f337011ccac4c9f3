"""Decompositions of the first catalog pass: linalg inverse/solve, cumulative ops, order
statistics, stable sort, searchsorted, elementwise math, erfinv, scatter(reduce=), uneven
adaptive max pooling, cdist."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof

# the dynamo translation of amin / amax recorded without a dim (torch.export leaves an empty dim
# out; aminmax is split into the two): what the amax, amin and aminmax helpers repair at export time
AMIN_AMAX_WITHOUT_DIM = r"Required parameter 'dim' is not provided\. Signature: pkg\.onnxscript\.torch_lib::aten_am(?:in|ax)\("

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
        rule="ONX501",
        proof=Proof("torch.linalg.inv(a)", "_onnx_linalg_inv(a)", "(well_conditioned(g, b, 4),)", decomposition_tol=2e-5),
    ),
    Decomposition(
        "linalg_inv_ex", ("torch.linalg.inv_ex",), False, (), (),
        "torch.linalg.inv_ex on _onnx_linalg_inv: the inverse, and an info of zeros (a singular "
        "matrix gives inf/NaN where inv_ex sets info > 0).", requires=("linalg_inv",),
        error_bound="as _onnx_linalg_inv's",
        rule="ONX501",
        proof=Proof("torch.linalg.inv_ex(a).inverse + torch.linalg.inv_ex(a).info[:, None, None]",
                    "_onnx_linalg_inv_ex(a).inverse + _onnx_linalg_inv_ex(a).info[:, None, None]",
                    "(well_conditioned(g, b, 4),)", decomposition_tol=2e-5),
    ),
    Decomposition(
        "linalg_solve", ("torch.linalg.solve",), False, ("linalg.solve", "linalg.solve vector"),
        (PYTORCH + "133052",),
        "Gauss-Jordan elimination with partial pivoting on [A | B], unrolled over n (static). "
        "Singular A gives inf/NaN where torch raises.",
        error_bound="max relative error 1e-5 (float32) on well-conditioned systems up to 8x8",
        rule="ONX501",
        proof=Proof(
            "torch.linalg.solve(a, c) + torch.linalg.solve(a, c.transpose(-2, -1), left=False).transpose(-2, -1)",
            "_onnx_linalg_solve(a, c) + _onnx_linalg_solve(a, c.transpose(-2, -1), left=False).transpose(-2, -1)",
            "(well_conditioned(g, b, 3), randn(g, b, 3, 2))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "linalg_solve_ex", ("torch.linalg.solve_ex",), False, (), (),
        "torch.linalg.solve_ex on _onnx_linalg_solve: the solution, and an info of zeros (a singular "
        "matrix gives inf/NaN where solve_ex sets info > 0).", requires=("linalg_solve",),
        error_bound="as _onnx_linalg_solve's",
        rule="ONX501",
        proof=Proof("torch.linalg.solve_ex(a, c).result + torch.linalg.solve_ex(a, c).info[:, None, None]",
                    "_onnx_linalg_solve_ex(a, c).result + _onnx_linalg_solve_ex(a, c).info[:, None, None]",
                    "(well_conditioned(g, b, 3), randn(g, b, 3, 2))", params="a, c", decomposition_tol=1e-6),
    ),
    Decomposition(
        "cumprod", ("torch.cumprod", "Tensor.cumprod"), True, ("cumprod", "Tensor.cumprod"),
        (PYTORCH + "102948", "https://github.com/onnx/onnx/issues/6590"),
        "Masked product over an (n, n) lower-triangular mask: O(n^2) memory along `dim`; "
        "dynamic sizes work. Exact for integers and zeros/negatives (unlike exp(cumsum(log)))."
        " Eager keeps the op (guarded helper): running products as a masked prod reduction, not ATen's sequential cumprod (float32 accumulated in double): differs in eager on float32 inputs.",
        rule="ONX502",
        proof=Proof("torch.cumprod(a, 1)", "_onnx_cumprod(a, 1)", "(ties(g, b, 6),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "cummax", ("torch.cummax", "Tensor.cummax"), True, ("cummax", "cummax indices"),
        (PYTORCH + "84496",),
        "Values and indices (last occurrence of the maximum; NaN propagates with its index), "
        "O(n^2) memory along `dim`.",
        rule="ONX502",
        proof=Proof("*torch.cummax(a, 1)", "*_onnx_cummax(a, 1)", "(ties_with_nan(g, b, 6),)"),
    ),
    Decomposition(
        "cummin", ("torch.cummin", "Tensor.cummin"), True, ("cummin",), (PYTORCH + "84496",),
        "Values and indices (last occurrence of the minimum; NaN propagates), O(n^2) memory.",
        rule="ONX502",
        proof=Proof("a.cummin(1).indices", "_onnx_cummin(a, 1).indices", "(ties(g, b, 6),)"),
    ),
    Decomposition(
        "kthvalue", ("torch.kthvalue", "Tensor.kthvalue"), True, ("kthvalue",),
        ("https://github.com/onnx/onnx/issues/3586",),
        "Stable ranks by pairwise comparison (O(n^2) memory along `dim`); NaN is the largest "
        "value, as in torch. With ties the index is one of the tied positions (torch does not "
        "specify which).", requires=("sort_rank",), tensor_arguments=("k",),
        rule="ONX503",
        proof=Proof("torch.kthvalue(a, 2, 1).values", "_onnx_kthvalue(a, 2, 1).values", "(ties_with_nan(g, b, 5),)"),
    ),
    Decomposition(
        "median", ("torch.median", "Tensor.median"), True, ("median dim", "median global"),
        ("https://github.com/onnx/onnx/issues/3586",),
        "Lower median by stable ranks (O(n^2) memory along `dim`); NaN if the values contain "
        "NaN, with the index of the first NaN, as in torch.", requires=("sort_rank",),
        rule="ONX503",
        proof=Proof(
            "torch.median(a, 1).values + torch.median(a)",
            "_onnx_median(a, 1).values + _onnx_median(a)",
            "(ties(g, b, 5),)",
        ),
    ),
    Decomposition(
        "nanmedian", ("torch.nanmedian", "Tensor.nanmedian"), True, ("nanmedian dim",), (),
        "Lower median of the non-NaN values by stable ranks; NaN if all are NaN.",
        requires=("sort_rank",),
        rule="ONX503",
        proof=Proof("torch.nanmedian(a, 1).values", "_onnx_nanmedian(a, 1).values", "(ties_with_nan(g, b, 5),)"),
    ),
    Decomposition(
        "mode", ("torch.mode", "Tensor.mode"), True, ("mode dim",), (PYTORCH + "79601",),
        "Pairwise equality counts (O(n^2) memory along `dim`): the smallest of the most frequent "
        "values and its last index, as torch. Inputs containing NaN may differ (NaN != NaN)."
        " Eager keeps the op (guarded helper): with NaN in the input the counts differ from "
        "torch.mode's (measured: 187 of 200 random NaN-holding batches).",
        rule="ONX503",
        proof=Proof("*torch.mode(a, 1)", "*_onnx_mode(a, 1)", "(ties(g, b, 6),)"),
    ),
    Decomposition(
        "sort", ("torch.sort", "Tensor.sort"), True, ("sort stable",), (PYTORCH + "95613",),
        "Stable ranks by pairwise comparison, O(n^2) memory along `dim`; NaN sorts last "
        "(first when descending), ties keep input order.", requires=("sort_rank",),
        when_literals=(("stable", None, True),),
        rule="ONX504",
        proof=Proof(
            "torch.sort(a, dim=1, stable=True).indices",
            "_onnx_sort(a, dim=1, stable=True).indices",
            "(ties_with_nan(g, b, 6),)",
        ),
    ),
    Decomposition(
        "argsort", ("torch.argsort", "Tensor.argsort"), True, ("argsort stable ties",),
        (PYTORCH + "95613",), "As _onnx_sort, indices only.", requires=("sort_rank",),
        when_literals=(("stable", None, True),),
        rule="ONX504",
        proof=Proof(
            "torch.argsort(a, dim=1, descending=True, stable=True)",
            "_onnx_argsort(a, dim=1, descending=True, stable=True)",
            "(ties(g, b, 6),)",
        ),
    ),
    Decomposition(
        "searchsorted", ("torch.searchsorted",), True,
        ("searchsorted", "searchsorted right", "searchsorted batched"),
        (PYTORCH + "151648", PYTORCH + "126549"),
        "Counts comparisons against every sorted element (O(n) work per value instead of "
        "log n). Same result as torch for sequences without NaN; NaN values land at the end.",
        rule="ONX505",
        proof=Proof(
            "torch.searchsorted(s, a, right=True)",
            "_onnx_searchsorted(s, a, right=True)",
            "(ties(g, b, 5), ties(g, 6).sort().values)",
            params="a, s", static=(1,),
        ),
    ),
    Decomposition(
        "rrelu", ("torch.nn.functional.rrelu",), True, ("rrelu eval",), (PYTORCH + "82031",),
        "Not training: leaky_relu with the slope (lower + upper) / 2, which is what ATen's rrelu "
        "computes in eval (rrelu_with_noise calls leaky_relu with that slope). Training (random "
        "slopes) runs the op. Eager keeps the op (guarded helper).",
        rule="ONX506",
        proof=Proof("torch.nn.functional.rrelu(a) + torch.nn.functional.rrelu(a, 0.1, 0.4)",
                    "_onnx_rrelu(a) + _onnx_rrelu(a, 0.1, 0.4)", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "hypot", ("torch.hypot", "Tensor.hypot"), True, ("hypot",), (),
        "big * sqrt(1 + (small/big)^2): no overflow; inf wins over NaN as in torch. Agrees with "
        "torch.hypot to 2 ulp.",
        rule="ONX506",
        proof=Proof(
            "torch.hypot(a, c)",
            "_onnx_hypot(a, c)",
            "(randn(g, b, 5) * 1e3, randn(g, b, 5))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "copysign", ("torch.copysign", "Tensor.copysign"), False, ("copysign",), (),
        "-0.0 in `other` counts as negative (via 1/-0.0 = -inf), but a NaN with its sign bit "
        "set counts as positive: exportable ops cannot read a NaN's sign bit.",
        rule="ONX506",
        proof=Proof("torch.copysign(a, c)", "_onnx_copysign(a, c)", "(randn(g, b, 5), ties(g, b, 5))", params="a, c"),
    ),
    Decomposition(
        "fmax", ("torch.fmax", "Tensor.fmax"), True, (), (),
        "maximum, with the other side where one side is NaN (NaN only where both are), in the "
        "promoted dtype. Exact (a selection). Eager keeps the op (guarded helper).",
        requires=("nan_ignoring_extreme",), rule="ONX506",
        proof=Proof("torch.fmax(a, c)", "_onnx_fmax(a, c)", "(randn_with_nan(g, b, 8), randn_with_nan(g, b, 8).roll(1, -1))",
                    params="a, c"),
    ),
    Decomposition(
        "fmin", ("torch.fmin", "Tensor.fmin"), True, (), (),
        "minimum, with the other side where one side is NaN (NaN only where both are), in the "
        "promoted dtype. Exact (a selection). Eager keeps the op (guarded helper).",
        requires=("nan_ignoring_extreme",), rule="ONX506",
        proof=Proof("torch.fmin(a, c)", "_onnx_fmin(a, c)", "(randn_with_nan(g, b, 8), randn_with_nan(g, b, 8).roll(1, -1))",
                    params="a, c"),
    ),
    Decomposition(
        "erfinv", ("torch.erfinv", "torch.special.erfinv", "Tensor.erfinv"), False,
        ("erfinv", "special.erfinv"), (),
        "Giles' single-precision polynomial plus one Newton step on erf.",
        error_bound="max abs error 2e-6 on [-0.999, 0.999] in float32 (measured by "
        "tests/test_decompositions.py); exact at 0 and +-1 (+-inf), NaN outside [-1, 1]",
        rule="ONX507",
        proof=Proof(
            "torch.erfinv(a)",
            "_onnx_erfinv(a)",
            "(torch.rand(b, 50, generator=g) * 1.98 - 0.99,)",
            rtol=5e-6, decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "gcd", ("torch.gcd", "Tensor.gcd"), True, ("gcd",), (),
        "Euclid unrolled for the integer type's worst case (94 steps for int64): a larger graph, "
        "exact results.",
        rule="ONX506",
        proof=Proof(
            "torch.gcd(i, j)",
            "_onnx_gcd(i, j)",
            "(torch.randint(-60, 60, (b, 8), generator=g), torch.randint(-60, 60, (b, 8), generator=g))",
            params="i, j",
        ),
    ),
    Decomposition(
        "lcm", ("torch.lcm", "Tensor.lcm"), True, ("lcm",), (), "|a| / gcd * |b| (0 if either is 0).",
        requires=("gcd",),
        rule="ONX506",
        proof=Proof(
            "torch.lcm(i, j)",
            "_onnx_lcm(i, j)",
            "(torch.randint(-30, 30, (b, 8), generator=g), torch.randint(-30, 30, (b, 8), generator=g))",
            params="i, j",
        ),
    ),
    Decomposition(
        "scatter", ("torch.scatter", "Tensor.scatter"), True,
        ("scatter reduce=multiply", "scatter reduce=add"), (),
        "reduce='multiply'/'add' become scatter_reduce('prod'/'sum', include_self=True)."
        " Eager keeps the op (guarded helper): scatter_reduce's sum/prod accumulation is another ATen kernel path than scatter(reduce=).",
        when_present=("reduce", 99),
        rule="ONX508",
        proof=Proof(
            "torch.scatter(a, 1, i, c, reduce='multiply')",
            "_onnx_scatter(a, 1, i, c, reduce='multiply')",
            "(randn(g, b, 5), torch.randint(0, 5, (b, 8), generator=g), randn(g, b, 8))",
            params="a, i, c", decomposition_tol=1e-6,  # products in another kernel's order
        ),
    ),
    Decomposition(
        "adaptive_max_pool2d", ("torch.nn.functional.adaptive_max_pool2d",), True,
        ("adaptive_max_pool2d non-divisible",),
        (PYTORCH + "75383", PYTORCH + "61172", PYTORCH + "60452"),
        "amax over torch's bins, rows then columns (separable); an axis kept (None) or pooled to 1 "
        "may be dynamic, other output sizes unroll their bins and need that axis static. Indices "
        "(return_indices=True): one amax per output cell (H, W static), torch's (first maximum).",
        requires=("adaptive_bin_maxima",),
        rule="ONX509",
        proof=Proof(
            "torch.nn.functional.adaptive_max_pool2d(a, (3, 3))",
            "_onnx_adaptive_max_pool2d(a, (3, 3))",
            "(randn(g, b, 2, 8, 7),)",
        ),
    ),
    Decomposition(
        "adaptive_avg_pool3d", ("torch.nn.functional.adaptive_avg_pool3d",), True, (),
        (PYTORCH + "125813",),
        "One mean per depth bin, then per row bin, then per column bin of those means, over "
        "torch's bins (floor(i*D/od) .. ceil((i+1)*D/od)): adaptive_avg_pool2d's per-axis bin "
        "sums (a matmul with a 0/1 matrix from the input's size as a tensor, so D, H, W may be "
        "dynamic). Output size 1 is a plain mean. Equal to torch up to float rounding (a mean of "
        "means); eager keeps the op (guarded helper).",
        requires=("adaptive_bin_means",),
        rule="ONX509",
        proof=Proof(
            "torch.nn.functional.adaptive_avg_pool3d(a, (2, 3, 3))",
            "_onnx_adaptive_avg_pool3d(a, (2, 3, 3))",
            "(randn(g, b, 2, 5, 7, 7),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "adaptive_max_pool3d", ("torch.nn.functional.adaptive_max_pool3d",), True,
        ("adaptive_max_pool3d keep axes", "adaptive_max_pool3d non-divisible"),
        ("https://github.com/pytorch/pytorch/issues/36425",),
        "Separable: amax over torch's bins per axis, depth then rows then columns (a box's max is "
        "the max of its axis maxima). An axis kept (None) or pooled to 1 may be dynamic; other "
        "output sizes unroll their bins and need that axis static. return_indices keeps the op.",
        requires=("adaptive_bin_maxima",),
        rule="ONX509",
        proof=Proof(
            "torch.nn.functional.adaptive_max_pool3d(a, (1, None, 3))",
            "_onnx_adaptive_max_pool3d(a, (1, None, 3))",
            "(randn(g, b, 2, 5, 4, 7),)",
        ),
    ),
    Decomposition(
        "adaptive_max_pool1d", ("torch.nn.functional.adaptive_max_pool1d",), True,
        ("adaptive_max_pool1d non-divisible",), (PYTORCH + "61172",),
        "The 2-D helper over a height of 1: the same bins along the last dimension (fastai's "
        "AdaptiveConcatPool1d in time-series classifiers).", requires=("adaptive_max_pool2d",),
        rule="ONX509",
        proof=Proof(
            "torch.nn.functional.adaptive_max_pool1d(a, 3) + torch.nn.functional.adaptive_max_pool1d(a, 3, True)[1]",
            "_onnx_adaptive_max_pool1d(a, 3) + _onnx_adaptive_max_pool1d(a, 3, True)[1]",
            "(randn(g, b, 2, 7),)",
        ),
    ),
    Decomposition(
        "cdist", ("torch.cdist",), False, ("cdist p=1", "cdist p=2", "cdist p=inf"),
        ("https://github.com/onnx/onnx/issues/3327",),
        "Broadcast differences, O(P*R*M) memory; `p` must be a number. Bit-identical for p=0 "
        "and p=inf; for other p eager cdist sums in another order (and for p=2 on large inputs "
        "uses a matrix-multiply formula): the two agree to float rounding.",
        rule="ONX510",
        proof=Proof(
            "torch.cdist(a, c, p=1)",
            "_onnx_cdist(a, c, p=1)",
            "(randn(g, b, 5, 3), randn(g, b, 4, 3))",
            params="a, c", decomposition_tol=1e-6,  # sum(-1) against _cdist_forward's loop
        ),
    ),
    Decomposition(
        "cdist_forward", ("torch.ops.aten._cdist_forward",), False, ("_cdist_forward",),
        (PYTORCH + "161089",),
        "ATen's cdist called directly (`torch.ops.aten._cdist_forward(x, y, p, compute_mode)`, compute_mode an "
        "int): `_onnx_cdist`'s broadcast differences while exporting. Eager keeps the op (guarded helper).",
        requires=("cdist",), rule="ONX510",
        proof=Proof(
            "torch.ops.aten._cdist_forward(a, c, 2.0, 0)",
            "_onnx_cdist_forward(a, c, 2.0, 0)",
            "(randn(g, b, 5, 3), randn(g, b, 4, 3))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "rfloordiv", ("Tensor.__rfloordiv__",), True, ("rfloordiv float", "rfloordiv int"),
        (PYTORCH + "147606",),  # the same translation failure for a number as pow's base
        "A Python number floor-divided by a tensor (`1.0 // s`, I-BERT's IntGELU): while exporting, the "
        "number as a tensor of the promoted dtype (torch.result_type) and torch.div(..., rounding_mode='floor'), "
        "the kernel floor_divide runs. Eager keeps the operator.",
        rule="ONX527",
        proof=Proof("a.__rfloordiv__(1.0) + i.__rfloordiv__(7)", "_onnx_rfloordiv(a, 1.0) + _onnx_rfloordiv(i, 7)",
                    "(randn(g, b, 4), ints(g, 1, 6, b, 4) * (1 - 2 * ints(g, 0, 2, b, 4)))",
                    params="a, i"),
    ),
    Decomposition(
        "aminmax", ("torch.aminmax", "Tensor.aminmax"), True, ("aminmax all", "Tensor.aminmax all"),
        ("https://github.com/pytorch/pytorch/pull/75714",),  # torch.ao's MinMaxObserver calls it
        "amin and amax over `dim`, every dimension spelled out when it is None: torch.export records "
        "aminmax without a dim, which onnxscript's translation passes on to amin / amax, which need it. "
        "A 0-d tensor is its own min and max. Eager keeps the op (guarded helper): ATen's aminmax can "
        "return another signed zero than amax does (the max of [0.0, -0.0] is -0.0).",
        rule="ONX515",
        # torch.export splits aminmax into amin and amax, whose translation then fails: the run
        # names those ops (`aten.amin.default`), not aminmax (torch.ao's observers call it)
        repairs_error=AMIN_AMAX_WITHOUT_DIM,
        proof=Proof("*torch.aminmax(a)", "*_onnx_aminmax(a)", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "amax", ("torch.amax", "Tensor.amax"), True, ("amax all",), (),
        "Every dimension passed as `dim` while exporting where the call leaves it empty: ONX523's "
        "source fix, at export time, for calls in code the rules do not rewrite (a library's, "
        "torch.masked.amax's). The same reduction.",
        static=False, rule="ONX515", repairs_error=AMIN_AMAX_WITHOUT_DIM,
        proof=Proof("torch.amax(a) + a.amax(dim=1).sum()", "_onnx_amax(a) + _onnx_amax(a, dim=1).sum()", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "amin", ("torch.amin", "Tensor.amin"), True, ("amin all",), (),
        "As amax, for amin.",
        static=False, rule="ONX515", repairs_error=AMIN_AMAX_WITHOUT_DIM,
        proof=Proof("torch.amin(a) + a.amin(()).sum()", "_onnx_amin(a) + _onnx_amin(a, ()).sum()", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "to_mkldnn", ("Tensor.to_mkldnn",), True, ("to_mkldnn",),
        (PYTORCH + "114188",),  # Cellpose's CPnet built with mkldnn=True
        "A dense copy while exporting (an MKL-DNN tensor is opaque: torch.export cannot reach its "
        "storage, the legacy exporter has no aten::to_mkldnn); `to_dense()` of a dense tensor is the "
        "tensor itself, so a model hopping between layouts exports through dense kernels, which may "
        "round otherwise than MKL-DNN's. Eager keeps the op (guarded helper).",
        rule="ONX515",
        repairs_error=r"Cannot access storage of OpaqueTensorImpl",
        # read back through _onnx_to_dense, as the source fix writes it: the legacy exporter has no
        # aten::to_dense, even of a dense tensor
        requires=("to_dense",),
        proof=Proof("a.to_mkldnn().to_dense() * 2", "_onnx_to_dense(_onnx_to_mkldnn(a)) * 2", "(randn(g, b, 2, 4, 4),)"),
    ),
    Decomposition(
        "grouped_mm", ("torch.nn.functional.grouped_mm", "torch._grouped_mm"), True, (),
        ("https://github.com/microsoft/onnxscript/issues/2795",),
        "Grouped matmuls of MoE experts: 3-D operands (groups first) as a batched matmul; a 2-D "
        "`mat_a` cut into groups by `offs` as a gather of each row's group matrix and a batched "
        "matmul (rows past the last offset, which the kernel leaves unwritten, are zero). Computed in "
        "float32 and cast to the result's dtype (onnxruntime has no bfloat16 MatMul; the grouped "
        "kernel accumulates in float32). Bias is not supported (the op runs). Export time only, "
        "named by both exporters' untranslated aten._grouped_mm. Eager keeps the op.",
        static=False, rule="ONX515",
        proof=Proof("torch.nn.functional.grouped_mm(a.bfloat16(), c.bfloat16()).float()",
                    "_onnx_grouped_mm(a.bfloat16(), c.bfloat16()).float()",
                    "(randn(g, b, 8, 16), randn(g, b, 16, 8))", params="a, c"),
    ),
)
# helpers that decompose nothing on their own (roll: ONX406; round_half_away: ONX101's element loops)
# size_extreme: ONX403's max/min of sizes; size_isqrt: ONX203's int(math.sqrt(size)); sym_int: ONX203's int() of
# float size math for the legacy exporter too; size_round: ONX402's math.ceil/floor of float size math; size_sqrt:
# ONX402's math.sqrt of sizes; linspace_steps: ONX407's linspace over a size; interpolate_scaled: ONX404's resize by a float scale from sizes;
# until_stop: ONX612's join of a loop's steps cut after its exit; size_cond / value_cond: ONX613's `if` on sizes /
# on a tensor's value as torch.cond under export; value_select: ONX601's `if` on a tensor's value, both branches and
# torch.where under either exporter; conv_transpose_sized: ONX533's ConvTranspose called with a size from the input;
# size_select: ONX614's `if` on sizes that only picks a number, torch.sym_ite under export; size_over / topk_over /
# sort_over: ONX615's `if` on a size around a cut to the k best rows, taken for every size under export; tensor_list:
# ONX202's `.tolist()` as lists of 0-d tensors while the legacy exporter traces
SUPPORT: tuple[str, ...] = ("sort_rank", "roll", "round_half_away", "nan_ignoring_extreme", "adaptive_bin_maxima",
                            "size_extreme", "size_isqrt", "linspace_steps", "interpolate_scaled",
                            "until_stop", "size_cond", "value_cond", "value_select", "sym_int", "sym_float", "size_round",
                            "size_sqrt", "conv_transpose_sized", "size_select", "size_over", "topk_over",
                            "sort_over", "tensor_list")
