"""ONX514: special functions (decompositions/registry_special.py)."""

from __future__ import annotations

from onnxfix.patterns.operators.base import DecompositionRule, rule_doc


class SpecialFunction(DecompositionRule):
    code = "ONX514"
    name = "special-function"
    summary = "Special functions (`lgamma`, `digamma`, ...) do not export: rewrite to series and recurrences"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.lgamma` / `torch.special.gammaln`, `torch.digamma` / "
        "`torch.special.digamma` / `torch.special.psi`, `torch.polygamma` / "
        "`torch.special.polygamma`, `torch.special.zeta`, `torch.mvlgamma` / "
        "`torch.special.multigammaln`, the modified Bessel functions `torch.special.i0` / "
        "`torch.i0`, `i0e`, `i1`, `i1e`, `torch.special.bessel_j0`, the normal quantile "
        "`torch.special.ndtri`, `torch.frexp`, and their "
        "Tensor methods (not `Tensor.polygamma`, "
        "whose receiver is the second argument).",
        "ONNX has no gamma-family op: legacy fails with `aten::lgamma` / `aten::digamma`, dynamo "
        "with `prims.lgamma` / `prims.digamma`. They are common in losses and likelihoods "
        "(Beta, Dirichlet, Poisson, negative binomial).",
        "def forward(self, alpha):\n    return torch.lgamma(alpha).sum(-1) - torch.lgamma(alpha.sum(-1))",
        "def forward(self, alpha):\n    return _onnx_lgamma(alpha).sum(-1) - _onnx_lgamma(alpha.sum(-1))",
        "Safe. Every helper returns the torch op itself outside export (it branches on "
        "`torch.onnx.is_in_onnx_export()`, False in eager): bit-identical in eager, the same "
        "errors. Exported: frexp is exact (its log only estimates the exponent, then corrected); digamma, i0, i0e, i1, i1e, "
        "bessel_j0, ndtri and polygamma of order 0 or 1 are ATen's own formula and "
        "coefficients, equal up to the rounding of log, sin, tan and exp and of the "
        "multiply-adds the compiled kernels fuse; lgamma and mvlgamma another algorithm "
        "(float64 series, within the measured bound below; mvlgamma gives values where torch "
        "raises, x <= (p-1)/2); zeta and polygamma of order >= 2 ATen's formula with its "
        "direct sum cut at 40 terms (q <= -31 gives NaN). Every helper exports with fixed "
        "operations (no data-dependent Python control flow).",
        code,
    )


RULES = [SpecialFunction]
