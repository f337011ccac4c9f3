"""ONX514: special functions (decompositions/registry_special.py)."""

from __future__ import annotations

from onnxfix.decompositions import BY_KEY
from onnxfix.patterns.operators.base import (
    DecompositionRule,
    argument,
    literal,
    rule_doc,
)


class SpecialFunction(DecompositionRule):
    code = "ONX514"
    name = "special-function"
    summary = "Special functions (`lgamma`, `digamma`, ...) do not export: rewrite to series and recurrences"
    default_safety = "per-finding"
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
        "frexp is safe (bit-identical). digamma, i0, i0e, i1, i1e, bessel_j0, ndtri, and "
        "polygamma with a literal order 0 or 1 (digamma, "
        "trigamma), are safe: "
        "ATen's own formula and coefficients, evaluated with the same arithmetic (unrolled "
        "loops, torch.where per element), equal up to the rounding of log, sin, tan and exp "
        "and of the multiply-adds the compiled kernels fuse. lgamma "
        "and mvlgamma are unsafe: torch calls libm's lgamma and the helper is another algorithm "
        "(float64 series, within the measured bound below); mvlgamma also returns values where "
        "torch raises (x <= (p-1)/2). zeta and polygamma of order >= 2 are unsafe: ATen's "
        "formula, but its direct sum is cut at 40 terms, so q <= -31 gives NaN. Every helper "
        "exports with fixed operations (no data-dependent Python control flow).",
        code,
    )

    def is_safe(self, decomposition, node, ctx, method):
        if decomposition.key == "polygamma":
            order = literal(argument(node, "n", 0))
            exact_order = type(order) is int and order in (0, 1)
            return exact_order and super().is_safe(BY_KEY["digamma"], node, ctx, method)
        return super().is_safe(decomposition, node, ctx, method)


RULES = [SpecialFunction]
