"""Special functions: gamma family, Bessel, zeta, ndtri, frexp."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "lgamma", ("torch.lgamma", "torch.special.gammaln", "Tensor.lgamma"), False,
        ("lgamma", "special.gammaln"),
        (PYTORCH + "109369", "https://github.com/Tencent/ncnn/issues/2807"),
        "Computed in float64 for every input dtype (then rounded to it): a Taylor series of "
        "lgamma(2+p)/p after shifting x to 2+p, |p| <= 1/2 (relative accuracy at the zeros 1 "
        "and 2), Stirling's series from 12.5 on, the reflection formula below -1/2. Poles (0, "
        "-0, negative integers) and +-inf give +inf, NaN stays NaN, integers promote to the "
        "default dtype, float32 overflows to inf where the true value does (x > 4.085e36; "
        "torch's vectorized AVX2 kernel already from 4.037e36, its scalar one as the helper). "
        "torch calls libm's lgamma, a different algorithm: the results differ in the last bits.",
        error_bound="measured against the true value (float64 / mpmath) on a dense grid of "
        "[-50, 1e38] with the poles, the zeros and their neighbouring floats "
        "(tests/test_decompositions_special.py), the same on every CPU: float32 correctly "
        "rounded (within 0.5 ulp, relative, also near the negative zeros, where torch's AVX2 "
        "lgammaf is 5e4 ulp off); float64 within 4 ulp relative for x > -1/2 and within 8 ulp of "
        "max(|lgamma x|, 1) below",
        rule="ONX514",
        proof=Proof("torch.lgamma(a)", "_onnx_lgamma(a)", "(spread(g, b),)", rtol=1e-6, decomposition_tol=1e-6),
    ),
    Decomposition(
        "digamma", ("torch.digamma", "torch.special.digamma", "torch.special.psi", "Tensor.digamma"),
        True, ("digamma",), (),
        "ATen's calc_digamma (Cephes psi) step for step in the input's dtype: recurrence up to "
        "x >= 10 (unrolled to its 10-step worst case, torch.where per element), the asymptotic "
        "series with ATen's coefficients, psi(10) as a constant, reflection for x < 0 with the "
        "pi/tan(pi r) term in float64 (as ATen, via cos/sin: ONNX Runtime has no float64 Tan). "
        "+0 gives -inf, -0 +inf, negative integers and -inf NaN, as torch.",
        error_bound="the same formula, measured against the true value on a dense grid of "
        "[-50, 1e38]: for x > 0 within 8 ulp of max(|digamma x|, 1) (float32 and float64); "
        "below 0, where the reflection term makes the formula itself ill-conditioned, at most "
        "4 (float32) / 8 (float64) ulp further from the true value than torch's own kernel",
        rule="ONX514",
        proof=Proof("torch.digamma(a)", "_onnx_digamma(a)", "(spread(g, b),)", rtol=1e-6, decomposition_tol=1e-6),
    ),
)
DECOMPOSITIONS += (
    Decomposition(
        "polygamma", ("torch.polygamma", "torch.special.polygamma"), False, ("polygamma 1", "polygamma 3"), (),
        "ATen's kernel by order (n a Python int): n = 0 is _onnx_digamma, n = 1 ATen's trigamma "
        "step for step in the input's dtype (reflection below 1/2, 6 recurrence steps, "
        "asymptotic series), n >= 2 is (-1)^(n+1) n! _onnx_zeta(n + 1, x) (ATen computes n! as "
        "exp(lgamma(n + 1)), a few ulp from the exact n! used here). Tensor.polygamma(n) is not "
        "rewritten (the receiver is the second argument). Safe for a literal n of 0 or 1, "
        "unsafe otherwise (x <= -31 gives NaN through zeta).",
        requires=("digamma", "zeta"),
        error_bound="n = 1: within 3 ulp relative for x > 0 and 4 ulp of max(|value|, 1) "
        "everywhere (float32 and float64); n >= 2: within 3 ulp relative for x > 0 (normal "
        "results), within 2 ulp of the largest term n! |x - round(x)|^-(n+1) for -31 < x < 0; "
        "n = 0 as digamma",
        rule="ONX514",
        proof=Proof(
            "*(torch.polygamma(1, a), torch.special.polygamma(3, a))",
            "*(_onnx_polygamma(1, a), _onnx_polygamma(3, a))",
            "negatives(g, b)",
            rtol=1e-6, decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "zeta", ("torch.special.zeta",), False, ("special.zeta",), (),
        "ATen's zeta (Cephes Hurwitz zeta) in float64 as ATen's CPU kernel (its accumulation type "
        "for float32), then rounded: the direct sum and the 12 Euler-Maclaurin terms with ATen's "
        "A[] coefficients, its data-dependent loop run 40 times with torch.where freezing each "
        "element where ATen returns. Domain as torch (x == 1: inf, x < 1: NaN, q a non-positive "
        "integer: inf, q < 0 with non-integer x: NaN). Unsafe: for non-integer q <= -31 (integer "
        "x) ATen sums more than 40 terms; the helper gives NaN there.",
        error_bound="q > 0: float32 correctly rounded, float64 within 4 ulp of the true value "
        "(an Euler-Maclaurin sum in mpmath) on a grid of x in [0.5, 100], q in (0, 1e10]; "
        "-31 < q < 0: within 2 ulp of torch relative to the largest term |q - round(q)|^-x (the "
        "same cancellation as in torch); q <= -31: NaN",
        rule="ONX514",
        proof=Proof(
            "torch.special.zeta(a, c)",
            "_onnx_zeta(a, c)",
            "orders(g, b)",
            params="a, c", rtol=1e-6, decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "mvlgamma", ("torch.mvlgamma", "torch.special.multigammaln", "Tensor.mvlgamma"), False,
        ("mvlgamma",), (),
        "ATen's sum of lgamma(x - i/2), i < p, plus p(p-1)/4 log(pi), with _onnx_lgamma (p a "
        "Python int). torch raises when some x <= (p-1)/2; the helper returns a value (+inf at "
        "poles) instead, since an exported graph cannot raise.",
        requires=("lgamma",),
        error_bound="within 2 ulp (float32) / 2.5 ulp (float64) of the true value, in units of "
        "max(|mvlgamma x|, the largest |lgamma| term, 1), on x in ((p-1)/2 + 1e-6, 1e4], p <= 6",
        rule="ONX514",
        proof=Proof(
            "torch.mvlgamma(a, 3) + torch.special.multigammaln(a, 1)",
            "_onnx_mvlgamma(a, 3) + _onnx_mvlgamma(a, 1)",
            "(1.001 + torch.rand(b, 20, generator=g) * 30,)",
            rtol=1e-6, decomposition_tol=1e-6,
        ),
    ),
)
_BESSEL_NOTES = (
    "ATen's calc_{0} (Cephes {0}) step for step in the input's dtype (half/bfloat16 through "
    "float32): Chebyshev series (chbevl) with ATen's tables on [0, 8] and on (8, inf) in 32/x, "
    "both evaluated, torch.where choosing.{1} Integers promote to the default dtype. The "
    "compiled ATen kernel may fuse the Clenshaw recurrence's multiply-add (FMA): the last bits "
    "can differ."
)
DECOMPOSITIONS += (
    Decomposition(
        "i0", ("torch.special.i0", "torch.i0", "Tensor.i0"), True, ("special.i0",), (),
        _BESSEL_NOTES.format("i0", " Even in x."),
        error_bound="the same formula: within 4 ulp relative of the true value on a grid of "
        "[-100, 100] and |x| up to 1e38 (where torch does not overflow), and at most 4 ulp "
        "further from it than torch's own kernel",
        requires=("bessel_i_series",),
        rule="ONX514",
        proof=Proof(
            "torch.special.i0(a) + torch.i0(a * 3)",
            "_onnx_i0(a) + _onnx_i0(a * 3)",
            "(bessel(g, b),)",
            rtol=1e-6, decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "i0e", ("torch.special.i0e",), True, ("special.i0e",), (),
        _BESSEL_NOTES.format("i0e", " exp(-|x|) I0(x), no exp evaluated."),
        error_bound="the same formula: within 4 ulp relative of the true value, and at most 4 "
        "ulp further from it than torch's own kernel",
        requires=("bessel_i_series",),
        rule="ONX514",
        proof=Proof("torch.special.i0e(a)", "_onnx_i0e(a)", "(bessel(g, b),)", rtol=1e-6, decomposition_tol=1e-6),
    ),
    Decomposition(
        "i1", ("torch.special.i1",), True, ("special.i1",), (),
        _BESSEL_NOTES.format("i1", " Odd in x; ATen's shorter float32 tables for float32."),
        error_bound="the same formula: within 11 (float32) / 8 (float64) ulp relative of the "
        "true value (the Clenshaw recurrence near y = 2, 7 < |x| <= 8, amplifies rounding, in "
        "torch's kernel as in the helper), and at most 8 ulp further from it than torch's own",
        requires=("bessel_i_series",),
        rule="ONX514",
        proof=Proof("torch.special.i1(a)", "_onnx_i1(a)", "(bessel(g, b),)", rtol=1e-6, decomposition_tol=2e-6),
    ),
    Decomposition(
        "i1e", ("torch.special.i1e",), True, ("special.i1e",), (),
        _BESSEL_NOTES.format("i1e", " exp(-|x|) I1(x); odd in x; ATen's float32 tables."),
        error_bound="the same formula: within 11 (float32) / 8 (float64) ulp relative of the "
        "true value (7 < |x| <= 8, as torch's own kernel), and at most 8 ulp further from it "
        "than torch's",
        requires=("bessel_i_series",),
        rule="ONX514",
        proof=Proof("torch.special.i1e(a)", "_onnx_i1e(a)", "(bessel(g, b),)", rtol=1e-6, decomposition_tol=1e-6),
    ),
)
DECOMPOSITIONS += (
    Decomposition(
        "ndtri", ("torch.special.ndtri",), True, ("special.ndtri",), (),
        "ATen's calc_ndtri (Cephes ndtri) step for step in the input's dtype (half/bfloat16 "
        "through float32): the central rational approximation for |y - 1/2| <= 1/2 - exp(-2) and "
        "the two tail approximations in z = sqrt(-2 log y) (below and from 8), all evaluated, "
        "torch.where choosing. 0 -> -inf, 1 -> +inf, outside [0, 1] NaN, as torch.",
        error_bound="the same formula: within 5 (float32) / 4 (float64) ulp relative of the "
        "true value on a dense grid of [0, 1] with both tails down to 1e-300, and at most 4 "
        "(float32) / 3 (float64) ulp further from it than torch's own kernel",
        rule="ONX514",
        proof=Proof(
            "torch.special.ndtri(a)",
            "_onnx_ndtri(a)",
            "(tail_probabilities(g, b),)",
            rtol=1e-6, decomposition_tol=1e-6,
        ),
    ),
)
DECOMPOSITIONS += (
    Decomposition(
        "bessel_j0", ("torch.special.bessel_j0",), True, ("special.bessel_j0",), (),
        "ATen's bessel_j0_forward (Cephes j0) step for step in the input's dtype (half/bfloat16 "
        "through float32): rational function of x^2 up to |x| = 5 (1 - x^2/4 below 1e-5), "
        "asymptotic form with ATen's P/Q tables above (including ATen's 7-term QQ table, so the "
        "helper reproduces torch's values, not Cephes'); all evaluated, torch.where choosing.",
        error_bound="the same formula: on [-60, 60] float32 within 2 ulp of max(|J0(x)|, 1) of "
        "the true value; float64 within 4e-7 absolute, the error of ATen's own tables (1e-8 up "
        "to |x| = 5); up to |x| = 1e38 never more than 1 ulp further from the true value than "
        "torch's kernel (whose argument reduction loses digits beyond 60)",
        rule="ONX514",
        proof=Proof(
            "torch.special.bessel_j0(a)",
            "_onnx_bessel_j0(a)",
            "(bessel(g, b) * 2,)",
            rtol=1e-6, decomposition_tol=1e-6,
        ),
    ),
)
DECOMPOSITIONS += (
    Decomposition(
        "frexp", ("torch.frexp", "Tensor.frexp"), True, ("frexp",), (),
        "Exponent estimated from log(|x|) and corrected by one step either way; mantissa scaled by "
        "exact powers of two built from the constants 2**(2**i), in float64 and in two halves "
        "(float64 subnormals need 2**1073). Returns torch.return_types.frexp (mantissa in the "
        "input's dtype, exponent int32); zeros keep their sign, inf/NaN give (x, 0), as torch."
        " Eager keeps the op (guarded helper): the exponent is estimated with log (whose last bit varies with the CPU kernel) and then corrected: exact by intent, not by the same ops.",
        error_bound="exact: bit-identical mantissa and equal exponent on 400k random bit patterns "
        "per dtype (float32, float64, float16, bfloat16, including subnormals, NaN payloads, "
        "+-0, +-inf, the extremes) and on the powers of two from 2^-60 to 2^59 with both neighbours",
        rule="ONX514",
        proof=Proof("*torch.frexp(a)", "*_onnx_frexp(a)", "(frexp_values(g, b),)"),
    ),
)
SUPPORT: tuple[str, ...] = ("bessel_i_series",)  # the Chebyshev series of i0, i0e, i1 and i1e
