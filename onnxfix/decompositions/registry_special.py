"""Special functions: gamma family, Bessel, zeta, ndtri, frexp."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "lgamma", ("torch.lgamma", "torch.special.gammaln", "Tensor.lgamma"), False,
        ("lgamma", "special.gammaln"),
        (PYTORCH + "109369", "https://github.com/Tencent/ncnn/issues/2807"),
        "Computed in float64 for every input dtype (then rounded to it): a Taylor series of "
        "lgamma(2+p)/p after shifting x to 2+p, |p| <= 1/2 (relative accuracy at the zeros 1 "
        "and 2), Stirling's series from 12.5 on, the reflection formula below -1/2. Poles (0, "
        "-0, negative integers) and +-inf give +inf, NaN stays NaN, integers promote to the "
        "default dtype, float32 overflows to inf where torch's lgammaf does (x >= 4.037e36). "
        "torch calls libm's lgamma, a different algorithm: the results differ in the last bits.",
        error_bound="measured against torch on a dense grid of [-50, 1e38] with the poles, the "
        "zeros and their neighbouring floats (tests/test_decompositions_special.py): float32 within "
        "1 ulp of max(|lgamma x|, 1), and within 1 ulp relative for x > -1/2 (near the negative "
        "zeros, where torch's lgammaf is 5e4 ulp off, the helper is the closer to the true value); "
        "float64 within 4 ulp relative for x > -1/2 and within 16 ulp of max(|lgamma x|, 1) below",
    ),
    Decomposition(
        "digamma", ("torch.digamma", "torch.special.digamma", "torch.special.psi", "Tensor.digamma"),
        True, ("digamma",), (),
        "ATen's calc_digamma (Cephes psi) step for step in the input's dtype: recurrence up to "
        "x >= 10 (unrolled to its 10-step worst case, torch.where per element), the asymptotic "
        "series with ATen's coefficients, psi(10) as a constant, reflection for x < 0 with the "
        "pi/tan(pi r) term in float64 (as ATen, via cos/sin: ONNX Runtime has no float64 Tan). "
        "+0 gives -inf, -0 +inf, negative integers and -inf NaN, as torch.",
        error_bound="the same formula: 96% (float32) and 89% (float64) of a dense grid of "
        "[-50, 1e38] bit-identical; otherwise within 4 (float32) / 8 (float64) ulp of "
        "max(|digamma x|, 1) (one-ulp differences of log and tan, amplified near the zeros of "
        "digamma as they are in torch itself)",
    ),
)
