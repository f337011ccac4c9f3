"""Operators only the legacy (TorchScript) exporter fails on or exports silently wrong; fixed when
a project targets legacy (``[tool.onnxfix] exporters`` includes "legacy"). Every helper exports
with both exporters. ONX518: silently wrong in legacy; ONX517: legacy export fails."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof
from onnxfix.decompositions.registry_fft import PAIR_NOTES

ONNX = "https://github.com/onnx/onnx/issues/"

# ---- ONX518: the legacy exporter writes a graph that computes something else -----------------
SILENT: tuple[Decomposition, ...] = (
    Decomposition(
        "outer", ("torch.outer", "Tensor.outer", "torch.ger", "Tensor.ger"), True, ("outer int float",), (),
        "ATen's composite (`self.reshape({n, 1}) * vec2`), which promotes the two dtypes as eager "
        "does. Legacy casts the product to the first vector's dtype: RoPE's "
        "`torch.outer(torch.arange(n), freqs)` exports as all zeros and integers (measured).",
        rule="ONX518",
        proof=Proof("torch.outer(i, a) * 2.0", "_onnx_outer(i, a) * 2.0", "(ints(g, -5, 5, b), randn(g, 3))",
                    params="i, a", static=(1,)),
    ),
    Decomposition(
        "floor_divide", ("torch.floor_divide", "Tensor.floor_divide", "Tensor.__floordiv__"), True,
        ("floor_divide int", "floor_divide float"),
        (PYTORCH + "78442", PYTORCH + "44692", ONNX + "4016"),
        "Eager keeps the op. While exporting, a float quotient is computed as ATen's kernel computes "
        "it (the numerator less its fmod remainder, divided, moved toward -inf, rounded to the "
        "nearest whole number), an integer one under legacy as torch.div(a, b, rounding_mode=\"floor\"). "
        "Both exporters write a float floor_divide as Floor(Div(a, b)), which is 1 too high wherever "
        "the rounded quotient lands on a whole number (0.7 // 0.1 is 6, Floor(7.000001) 7); legacy "
        "writes an integer one as a truncating Div (wrong by 1 when the quotient is negative). Under "
        "`onnxfix export`, the dynamo exporter's Floor being the first value that differs takes it too.",
        rule="ONX518",
        proof=Proof(
            "torch.floor_divide(i, j) + torch.floor_divide(i * 0.1, j * 0.1) * 1000",
            "_onnx_floor_divide(i, j) + _onnx_floor_divide(i * 0.1, j * 0.1) * 1000",
            "(ints(g, -50, 50, b, 8), ints(g, 1, 6, b, 8) * signs(g, b, 8))",
            params="i, j",
        ),
    ),
    Decomposition(
        "bitwise_right_shift", ("torch.bitwise_right_shift", "Tensor.bitwise_right_shift", "Tensor.__rshift__"), True,
        ("bitwise_right_shift neg",), (PYTORCH + "191014", PYTORCH + "139455"),
        "Arithmetic shift as floor division by 2**s, in two halves so 2**half fits the integer "
        "type; shifts below 0 or >= the bit width give ATen's results (0/-1, uint8: 0). Legacy "
        "writes a truncating Div by 2**s (wrong for negative values that shift out a set bit). The "
        "dynamo exporter types a uint8 shift int8 (onnxruntime then refuses a bitwise op of it with a "
        "uint8 operand): while it exports, a uint8 shift runs in int64 and is cast back, exactly.",
        rule="ONX518", repairs_error=r"Type parameter \(T\) of Optype \(Bitwise\w+\) bound to different types "
        r"\(tensor\(u?int8\) and tensor\(u?int8\)",
        proof=Proof(
            "torch.bitwise_right_shift(i, j)",
            "_onnx_bitwise_right_shift(i, j)",
            "(ints(g, -1000, 1000, b, 8), ints(g, 0, 70, b, 8))",
            params="i, j",
        ),
    ),
    Decomposition(
        "softplus", ("torch.nn.functional.softplus",), True,
        ("softplus beta", "softplus threshold"), (ONNX + "5226", PYTORCH + "64811"),
        "ATen's formula: x where x * beta > threshold, else log1p(exp(x * beta)) / beta. Legacy "
        "writes Softplus(x * beta) / beta and drops the threshold: wrong above a threshold lower "
        "than about 15 (invisible in float32 at the default 20). Reported only when `threshold` "
        "is given and not a literal >= 20. Eager results equal torch's to an ulp (vectorised "
        "exp/log1p).",
        rule="ONX518",
        proof=Proof(
            "torch.nn.functional.softplus(a, beta=2.0, threshold=1.0)",
            "_onnx_softplus(a, beta=2.0, threshold=1.0)",
            "(randn(g, b, 10) * 3,)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "index_add", ("Tensor.index_add", "torch.index_add"), True, ("index_add dup",),
        (PYTORCH + "111159",),
        "scatter_add along `dim` with the index broadcast over `source` (alpha multiplies "
        "`source` first). Legacy refuses duplicate indices (\"does not support exporting "
        "'index_add_()' function with duplicated values\"). Out-of-place calls only."
        " Eager keeps the op (guarded helper): scatter_add (with source * alpha) is another kernel than index_add, whose alpha add may be fused.",
        rule="ONX518",
        proof=Proof(
            "a.index_add(1, i, c)",
            "_onnx_index_add(a, 1, i, c)",
            "(randn(g, b, 5), ints(g, 0, 5, 8), randn(g, b, 8))",
            params="a, i, c", static=(1,), decomposition_tol=1e-6,  # scatter_add's sums, not index_add's
        ),
    ),
    Decomposition(
        "index_put", ("Tensor.index_put", "torch.index_put"), True, ("index_put accumulate dup",),
        (PYTORCH + "61034", ONNX + "3547"),
        "accumulate=True: the integer index tensors (broadcast, negative ones wrapped) become one "
        "row index of input viewed as (rows, *rest), then scatter_add; duplicates are summed. "
        "Legacy writes a ScatterND that keeps one of the duplicates. Boolean masks (which cannot "
        "repeat) run the original op. Out-of-place calls only."
        " Eager keeps the op (guarded helper): scatter_add is another accumulation path than index_put(accumulate=True).",
        when_literals=(("accumulate", None, True),),
        rule="ONX518",
        proof=Proof(
            "a.index_put((i,), c, accumulate=True)",
            "_onnx_index_put(a, (i,), c, accumulate=True)",
            "(randn(g, 5, 3), ints(g, -5, 5, 8), randn(g, 8, 3))",
            params="a, i, c", static=(0, 1, 2), decomposition_tol=1e-6,  # scatter_add's sums, not index_put's
        ),
    ),
)

# ---- ONX517: the legacy exporter has no translation --------------------------------------------
UNSUPPORTED: tuple[Decomposition, ...] = (
    Decomposition(
        "logaddexp", ("torch.logaddexp", "Tensor.logaddexp"), True, ("logaddexp",), (),
        "ATen's formula: max + log1p(exp(-|a - b|)); equal infinities give themselves."
        " Eager keeps the op (guarded helper): ATen's fused vectorized kernel rounds differently from exp/log1p composed: 200 of 200 random 64x64 batches differ on AVX-512 (#23, #26).",
        rule="ONX517",
        proof=Proof(
            "torch.logaddexp(a, c)",
            "_onnx_logaddexp(a, c)",
            "(specials(g, b, 8), randn(g, b, 8))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "logaddexp2", ("torch.logaddexp2", "Tensor.logaddexp2"), True, ("logaddexp2",), (),
        "ATen's formula: max + log1p(2 ** -|a - b|) / ln 2; equal infinities give themselves.",
        rule="ONX517",
        proof=Proof(
            "torch.logaddexp2(a, c)",
            "_onnx_logaddexp2(a, c)",
            "(specials(g, b, 8), randn(g, b, 8))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "logcumsumexp", ("torch.logcumsumexp", "Tensor.logcumsumexp"), False, ("logcumsumexp",), (),
        "logsumexp over an (n, n) lower-triangular -inf mask: O(n^2) memory along `dim`. ATen "
        "accumulates sequentially, so rounding differs.",
        error_bound="max error 1.4e-7 relative to max(1, |value|) in float32 (normal values "
        "scaled by 1, 10, 30; 5 to 200 steps); -inf rows stay -inf",
        rule="ONX517",
        proof=Proof("torch.logcumsumexp(a, 1)", "_onnx_logcumsumexp(a, 1)", "(randn(g, b, 7) * 5,)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "nansum", ("torch.nansum", "Tensor.nansum"), True, ("nansum",), (),
        "where(isnan, 0, x).sum(dim): NaN counts as 0 (the export branch matches torch within 1e-6)."
        " Eager keeps the op (guarded helper): where + sum is another reduction kernel than ATen's nansum.",
        rule="ONX517",
        proof=Proof("torch.nansum(a, 1)", "_onnx_nansum(a, 1)", "(randn_with_nan(g, b, 6),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "nanmean", ("torch.nanmean", "Tensor.nanmean"), True, ("nanmean",), (),
        "As ATen: nansum / count of non-NaN values (all-NaN slices give NaN)."
        " Eager keeps the op (guarded helper): ATen divides its nansum kernel's result; the helper sums with torch.sum, another reduction kernel.",
        rule="ONX517",
        proof=Proof(
            "torch.nanmean(a, 1, keepdim=True)",
            "_onnx_nanmean(a, 1, keepdim=True)",
            "(randn_with_nan(g, b, 6),)", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "count_nonzero", ("torch.count_nonzero", "Tensor.count_nonzero"), True, ("count_nonzero",), (),
        "(x != 0).sum(dim), int64.",
        rule="ONX517",
        proof=Proof(
            "torch.count_nonzero(a, dim=1)",
            "_onnx_count_nonzero(a, dim=1)",
            "(ints(g, -1, 2, b, 7).float(),)",
        ),
    ),
    Decomposition(
        "trace", ("torch.trace", "Tensor.trace"), True, ("trace",), (),
        "torch.diagonal(x).sum() (integers sum to int64, as torch.trace).",
        rule="ONX517",
        proof=Proof("torch.trace(a)", "_onnx_trace(a)", "(randn(g, 4, 4),)", static=(0,), decomposition_tol=1e-6),
    ),
    Decomposition(
        "diff", ("torch.diff", "Tensor.diff"), True, ("diff", "diff n=2 prepend"),
        ("https://github.com/ubicomplab/rPPG-Toolbox/issues/272",),
        "cat(prepend, x, append) then n slice differences (n a Python int; bool uses !=).",
        rule="ONX517",
        proof=Proof(
            "torch.diff(a, n=2, dim=1, prepend=a[:, :1])",
            "_onnx_diff(a, n=2, dim=1, prepend=a[:, :1])",
            "(randn(g, b, 6),)",
        ),
    ),
    Decomposition(
        "frac", ("torch.frac", "Tensor.frac"), True, ("frac",), (),
        "x - trunc(x), trunc written as ceil below 0 and floor above (legacy has no aten::trunc).",
        rule="ONX517",
        proof=Proof("torch.frac(a * 3)", "_onnx_frac(a * 3)", "(randn(g, b, 9),)"),
    ),
    Decomposition(
        "heaviside", ("torch.heaviside", "Tensor.heaviside"), True, ("heaviside",), (),
        "where(x == 0, values, x > 0) in x's dtype (NaN gives 0, as ATen).",
        rule="ONX517",
        proof=Proof(
            "torch.heaviside(a, c)",
            "_onnx_heaviside(a, c)",
            "(ints(g, -1, 2, b, 8).float(), randn(g, b, 8))",
            params="a, c",
        ),
    ),
    Decomposition(
        "signbit", ("torch.signbit", "Tensor.signbit"), False, ("signbit",), (),
        "x < 0, and -0.0 via 1 / x = -inf. A NaN's sign bit cannot be read with exportable ops: "
        "a negative NaN gives False where torch gives True.",
        rule="ONX517",
        proof=Proof(
            "torch.signbit(a)",
            "_onnx_signbit(a)",
            "(specials(g, b, 6) * torch.tensor([1.0, 1, 1, -1, 1, 1]),)",
        ),
    ),
    Decomposition(
        "isneginf", ("torch.isneginf", "Tensor.isneginf"), True, ("isneginf",), (),
        "x == -inf (always False for integers).",
        rule="ONX517",
        proof=Proof("torch.isneginf(a)", "_onnx_isneginf(a)", "(specials(g, b, 6),)"),
    ),
    Decomposition(
        "sgn", ("torch.sgn", "Tensor.sgn"), True, ("sgn",), (),
        "torch.sign for real tensors (the same kernel); x / |x| (0 at 0) for complex ones."
        " Eager keeps the op (guarded helper): complex x / |x| composed from tensor ops, ATen's sgn kernel computes it vectorized its own way.",
        rule="ONX517",
        proof=Proof("torch.sgn(a)", "_onnx_sgn(a)", "(specials(g, b, 6),)"),
    ),
    Decomposition(
        "float_power", ("torch.float_power", "Tensor.float_power"), True, ("float_power",), (),
        "pow in float64 (complex128 if either side is complex), as ATen."
        " Eager keeps the op (guarded helper): ATen converts a Python exponent to double before pow, the helper passes it as given, and pow picks its kernel path from the scalar.",
        rule="ONX517",
        proof=Proof("torch.float_power(a, 3)", "_onnx_float_power(a, 3)", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "ldexp", ("torch.ldexp", "Tensor.ldexp"), True, ("ldexp",), (),
        "input * 2.0 ** other, ATen's own formula.",
        rule="ONX517",
        proof=Proof("torch.ldexp(a, i)", "_onnx_ldexp(a, i)", "(randn(g, b, 6), ints(g, -5, 6, b, 6))", params="a, i"),
    ),
    Decomposition(
        "sinc", ("torch.special.sinc", "torch.sinc", "Tensor.sinc"), True, ("special.sinc",), (),
        "sin(pi x) / (pi x), 1 at 0, as ATen (to an ulp: vectorised sin).",
        rule="ONX517",
        proof=Proof(
            "torch.special.sinc(a)",
            "_onnx_sinc(a)",
            "(randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "xlogy", ("torch.special.xlogy", "torch.xlogy", "Tensor.xlogy"), True, ("special.xlogy",), (),
        "NaN where y is NaN, 0 where x == 0, else x * log(y), as ATen.",
        rule="ONX517",
        proof=Proof(
            "torch.special.xlogy(a, c)",
            "_onnx_xlogy(a, c)",
            "(randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]), positive(g, b, 8))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "xlog1py", ("torch.special.xlog1py",), True, ("special.xlog1py",), (),
        "NaN where y is NaN, 0 where x == 0, else x * log1p(y), as ATen.",
        rule="ONX517",
        proof=Proof(
            "torch.special.xlog1py(a, c)",
            "_onnx_xlog1py(a, c)",
            "(randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]), positive(g, b, 8))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "entr", ("torch.special.entr",), True, ("special.entr",), (),
        "-x log x for x > 0, 0 at 0, -inf below 0, NaN kept, as ATen.",
        rule="ONX517",
        proof=Proof(
            "torch.special.entr(a)",
            "_onnx_entr(a)",
            "(randn(g, b, 8) * torch.tensor([1.0, 0, 1, 1, 1, 1, 1, 1]),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "ndtr", ("torch.special.ndtr",), True, ("special.ndtr",), (),
        "(1 + erf(x / sqrt 2)) / 2, ATen's formula. The exported Erf "
        "loses the tail below about -6 where the CDF underflows relative to 1 (as torch's)."
        " Eager keeps the op (guarded helper): erf composed from tensor ops (vectorized), ATen's ndtr kernel calls erf/erfc per element.",
        rule="ONX517",
        proof=Proof("torch.special.ndtr(a)", "_onnx_ndtr(a)", "(randn(g, b, 8) * 3,)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "erfcx", ("torch.special.erfcx",), False, ("special.erfcx",), (),
        "exp(x^2) (1 - erf(x)) below |x| = 1.5, a 32-term continued fraction above, "
        "2 exp(x^2) - erfcx(-x) for negative x; inf, NaN and 0 as torch.",
        error_bound="max relative error 1.2e-6 in float32, 1.2e-9 in float64 on [-9, 60] "
        "(measured on 2e6 points; tests/test_decompositions_legacy.py)",
        rule="ONX517",
        proof=Proof("torch.special.erfcx(a)", "_onnx_erfcx(a)", "(randn(g, b, 12) * 4,)", rtol=2e-6, decomposition_tol=1e-6),
    ),
    Decomposition(
        "log_ndtr", ("torch.special.log_ndtr",), False, ("special.log_ndtr",), (),
        "ATen's two branches (log(erfcx(-t) / 2) - t^2 below x = -1, log1p(-erfc(t) / 2) above, "
        "t = x / sqrt 2) with `_onnx_erfcx`'s approximation.",
        requires=("erfcx",),
        error_bound="max relative error 5e-6 in float32 (1.1e-6 for x <= 5; the upper tail, where "
        "the result is below 1e-6 in size, amplifies the rounding of exp(-x^2/2)) and 1.2e-9 in "
        "float64 on [-40, 40] (measured on 2e6 points), where the result is a normal float; "
        "results below the smallest normal may flush to 0",
        rule="ONX517",
        proof=Proof(
            "torch.special.log_ndtr(a)",
            "_onnx_log_ndtr(a)",
            "(randn(g, b, 12) * 8,)",
            rtol=6e-6, decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "kron", ("torch.kron", "Tensor.kron"), True, ("kron",), (),
        "Interleaved broadcast product reshaped: each element is one product (bit-identical).",
        rule="ONX517",
        proof=Proof(
            "torch.kron(a, c)",
            "_onnx_kron(a, c)",
            "(randn(g, b, 3), randn(g, 3, 2))",
            params="a, c", static=(1,),
        ),
    ),
    Decomposition(
        "vecdot", ("torch.linalg.vecdot",), True, ("linalg.vecdot",), (),
        "(conj(x) * y).sum(dim), ATen's formula.",
        rule="ONX517",
        proof=Proof(
            "torch.linalg.vecdot(a, c)",
            "_onnx_vecdot(a, c)",
            "(randn(g, b, 4, 3), randn(g, b, 4, 3))",
            params="a, c",
        ),
    ),
    Decomposition(
        "dist", ("torch.dist", "Tensor.dist"), True, ("dist p=3",), (),
        "linalg.vector_norm(input - other, p), as ATen."
        " Eager keeps the op (guarded helper): ATen reaches the norm through at::norm; not shown to be the same reduction as linalg.vector_norm on every path.",
        rule="ONX517",
        proof=Proof(
            "torch.dist(a, c, p=3)",
            "_onnx_dist(a, c, p=3)",
            "(randn(g, b, 4), randn(g, b, 4))",
            params="a, c", decomposition_tol=1e-6,  # vector_norm against aten::dist's kernel
        ),
    ),
    Decomposition(
        "matrix_power", ("torch.linalg.matrix_power", "torch.matrix_power", "Tensor.matrix_power"), True,
        ("linalg.matrix_power 3",), (),
        "ATen's order of products (bit-identical in eager): direct products for n <= 3, binary "
        "exponentiation above; n must be a Python int (the products unroll). A negative n needs "
        "an inverse and runs the original op (which no exporter translates).",
        rule="ONX517",
        proof=Proof("torch.linalg.matrix_power(a, 5)", "_onnx_matrix_power(a, 5)", "(randn(g, b, 3, 3) * 0.5,)"),
    ),
    Decomposition(
        "multi_dot", ("torch.linalg.multi_dot",), True, ("linalg.multi_dot",), (),
        "ATen's multiplication order (cost comparison for three matrices, the matrix-chain "
        "programme for more; 1-D ends as vectors): bit-identical in eager. The order is fixed when "
        "the model is traced: with a dynamic dimension, eager may pick another order for other "
        "sizes (a rounding difference only).",
        rule="ONX517",
        proof=Proof(
            "torch.linalg.multi_dot([a, c, a.T])",
            "_onnx_multi_dot([a, c, a.T])",
            "(randn(g, 3, 4), randn(g, 4, 4))",
            params="a, c", static=(0, 1),
        ),
    ),
    Decomposition(
        "quantile", ("torch.quantile", "Tensor.quantile"), True, ("quantile", "quantile tensor q"), (),
        "ATen's algorithm (bit-identical in eager, every interpolation mode, scalar or 1-D q, "
        "dim=None, keepdim): sort, rank q * (n - 1), gather below/above, lerp; NaN in a slice "
        "gives NaN (set explicitly: NaN is sorted as +inf, since the exported TopK need not put "
        "NaN last).", requires=("quantile_impl",),
        rule="ONX517",
        proof=Proof(
            "torch.quantile(a, c, dim=1, keepdim=True)",
            "_onnx_quantile(a, c, dim=1, keepdim=True)",
            "(randn(g, b, 7), torch.tensor([0.1, 0.5, 0.9]))",
            params="a, c", static=(1,),
        ),
    ),
    Decomposition(
        "nanquantile", ("torch.nanquantile", "Tensor.nanquantile"), True, ("nanquantile",), (),
        "As `_onnx_quantile` over each slice's non-NaN values (rank q * (count - 1)); NaN when "
        "a slice is all NaN.", requires=("quantile_impl",),
        rule="ONX517",
        proof=Proof(
            "torch.nanquantile(a, 0.3, dim=1, interpolation='midpoint')",
            "_onnx_nanquantile(a, 0.3, dim=1, interpolation='midpoint')",
            "(randn_with_nan(g, b, 7),)",
        ),
    ),
    Decomposition(
        "trapezoid", ("torch.trapezoid", "torch.trapz"), True, ("trapezoid", "trapz"), (),
        "ATen's formulas: (sum(y) - (y[0] + y[-1]) / 2) * dx, or sum(dx_i (y_i + y_i+1)) / 2 "
        "with sample points x.",
        rule="ONX517",
        proof=Proof("torch.trapezoid(a, dim=1)", "_onnx_trapezoid(a, dim=1)", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "cumulative_trapezoid", ("torch.cumulative_trapezoid",), True, ("cumulative_trapezoid",), (),
        "ATen's formula: cumsum(dx / 2 * (y_i + y_i+1)).",
        rule="ONX517",
        proof=Proof(
            "torch.cumulative_trapezoid(a, dim=1)",
            "_onnx_cumulative_trapezoid(a, dim=1)",
            "(randn(g, b, 6),)",
        ),
    ),
    Decomposition(
        "renorm", ("torch.renorm", "Tensor.renorm"), True, ("renorm",), (ONNX + "627",),
        "Slices along `dim` with p-norm above maxnorm scaled by maxnorm / (norm + 1e-7), as ATen."
        " Eager keeps the op (guarded helper): Python's maxnorm / t runs as reciprocal(t) * maxnorm, and ATen takes half types' norms in float.",
        rule="ONX517",
        proof=Proof("torch.renorm(a, 2, 0, 1.0)", "_onnx_renorm(a, 2, 0, 1.0)", "(randn(g, b, 5),)",
                    decomposition_tol=1e-6),  # a norm and factor outside aten::renorm's kernel
    ),
    Decomposition(
        "rms_norm", ("torch.nn.functional.rms_norm",), True, ("rms_norm",),
        (PYTORCH + "159249", "https://github.com/NVIDIA/Model-Optimizer/issues/262"),
        "ATen's composite: x * rsqrt(mean(x^2) + eps) * weight, in float32 for half types, eps "
        "defaulting to the computation type's epsilon (float16/bfloat16 "
        "included). `nn.RMSNorm` modules are decomposed by `onnxfix export --decompose`."
        " Eager keeps the op (guarded helper): pow/mean/rsqrt composed from tensor ops, where torch's rms_norm may run a fused kernel.",
        rule="ONX517",
        proof=Proof(
            "torch.nn.functional.rms_norm(a, (5,), c)",
            "_onnx_rms_norm(a, (5,), c)",
            "(randn(g, b, 5), randn(g, 5))",
            params="a, c", static=(1,), decomposition_tol=1e-6,
        ),
    ),
)

# ---- ONX526 under legacy only: complex values its symbolics refuse -----------------------------
COMPLEX: tuple[Decomposition, ...] = (
    Decomposition(
        "pair_stft", ("torch.stft", "Tensor.stft"), False, ("stft", "stft magnitude"),
        (PYTORCH + "107677", PYTORCH + "138313", "https://github.com/NVIDIA-NeMo/Speech/issues/11684"),
        PAIR_NOTES + " Under the legacy exporter, whose STFT symbolic takes real output only: "
        "torch.stft(..., return_complex=False) there, its (..., 2) output as a pair. The dynamo exporter takes "
        "the complex op; of a real signal the helper then writes the DC and Nyquist bins' imaginary parts as "
        "+0, as ATen does (onnxruntime's STFT leaves roundings of either sign, which flip a negative bin's "
        "phase from pi to -pi): reported for dynamo where the phase is taken. _onnx_irfftn comes with it: the "
        "pair's torch.istft needs it (an enhancement model's stft, mask and istft, the istft in another "
        "module's method).", requires=("complex_pair", "irfftn"), drop_in=False, rule="ONX526",
        when_literals=(("return_complex", None, True),),
        proof=Proof("torch.stft(a, 8, window=torch.hann_window(8), return_complex=True).abs()",
                    "_onnx_pair_stft(a, 8, window=torch.hann_window(8), return_complex=True).abs()",
                    "(randn(g, b, 64),)", decomposition_tol=1e-6),
    ),
)

DECOMPOSITIONS: tuple[Decomposition, ...] = SILENT + UNSUPPORTED + COMPLEX
SUPPORT: tuple[str, ...] = ("quantile_impl", "index_put_rows")  # shared by quantile and nanquantile; index_put's
