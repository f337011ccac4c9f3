"""ONX512-ONX513: linear-algebra factorisations and spectral linear algebra
(decompositions/registry_linalg.py, registry_spectral.py)."""

from __future__ import annotations

import ast
import dataclasses

from onnxfix.patterns.operators.base import (
    NOT_LITERAL,
    DecompositionRule,
    argument,
    literal,
    match_call,
    reads_only_first_field,
    rule_doc,
)
from onnxfix.rewriter.context import FunctionContext


class LinalgFactorisation(DecompositionRule):
    code = "ONX512"
    name = "linalg-factorisation"
    summary = ("`cholesky` / `solve_triangular` / `cholesky_solve` / `slogdet` / `qr` / `matrix_exp` / `lstsq` do not "
               "export: rewrite to unrolled factorisations")
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.linalg.cholesky`, `torch.cholesky`, `Tensor.cholesky`, "
        "`torch.linalg.solve_triangular`, `torch.triangular_solve`, `Tensor.triangular_solve`, "
        "`torch.cholesky_solve`, `Tensor.cholesky_solve`, "
        "`torch.linalg.slogdet`, `torch.slogdet`, "
        "`Tensor.slogdet`, `torch.linalg.qr`, `torch.linalg.matrix_exp`, `torch.matrix_exp`, "
        "`Tensor.matrix_exp` and `torch.linalg.lstsq` (fix only where `.solution` / `[0]` is used).",
        "ONNX has no factorisation or triangular solver (onnx/onnx#7144): both exporters fail, "
        "legacy with `UnsupportedOperatorError: aten::linalg_cholesky` (`linalg_qr`, "
        "`linalg_slogdet`, ...), dynamo with `No ONNX function found for "
        "aten.linalg_cholesky_ex` (`aten.linalg_qr`, `aten._linalg_slogdet`, ...); dynamo "
        "cannot even capture `lstsq` (data-dependent output shapes). Gaussian-process and "
        "normalizing-flow models need them at inference.",
        "def forward(self, k, y):\n    l = torch.linalg.cholesky(k)\n"
        "    return torch.linalg.solve_triangular(l, y, upper=False)",
        "def forward(self, k, y):\n    l = _onnx_linalg_cholesky(k)\n"
        "    return _onnx_linalg_solve_triangular(l, y, upper=False)",
        "Safe: outside export every helper returns the torch op itself (it branches on "
        "`torch.onnx.is_in_onnx_export()`, False in eager), so eager outputs and errors are "
        "bit-identical. The exported model runs the textbook algorithms unrolled over the "
        "(static) matrix size, so there the rounding differs from LAPACK's blocked kernels (differences grow with the condition "
        "number), and inputs torch rejects give NaN/inf instead of an error (cholesky of a "
        "matrix that is not positive definite). QR follows LAPACK's sign convention but "
        "rank-deficient inputs get other columns of Q past the rank; lstsq assumes A has full "
        "rank and is fixed only where `.solution` / `[0]` is read (its other fields depend on "
        "the driver and device, and are not computed when exported); matrix_exp is a Taylor approximant with at most 20 squarings "
        "(||A||_1 <= 2^20). Matrix sizes must be static; batch sizes may be dynamic.",
        code,
    )

    def visit_Call(self, node, ctx):
        for finding in super().visit_Call(node, ctx):
            if finding.fix is not None and self._other_lstsq_fields(node, ctx):
                finding = dataclasses.replace(finding, fix=None)
            yield finding

    @staticmethod
    def _other_lstsq_fields(node: ast.Call, ctx: FunctionContext) -> bool:
        """A `lstsq` call whose residuals / rank / singular_values may be read."""
        found = match_call(node, ctx)
        return found is not None and found[1].key == "linalg_lstsq" and not reads_only_first_field(node, ctx, "solution")


class SpectralLinalg(DecompositionRule):
    code = "ONX513"
    name = "spectral-linalg"
    summary = ("`eigh` / `eigvalsh` / `svd` / `svdvals` / `pinv` / `matrix_rank` / `matrix_norm(ord=2, -2, "
               "'nuc')` do not export: rewrite to Jacobi rotations")
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.linalg.eigh`, `eigvalsh`, `svd`, `svdvals`, `pinv`, `matrix_rank`, and "
        "`torch.linalg.matrix_norm` with `ord=2`, `-2` or `'nuc'` (the orders that need singular "
        "values; the others export).",
        "ONNX has no eigen- or singular value decomposition (onnx/onnx#3839, #5570). Legacy fails "
        "with `aten::linalg_eigh` / `aten::linalg_svd` / `aten::linalg_pinv` or \"Unsupported: "
        "ONNX export of operator linalg.matrix_norm, ord==2\"; dynamo with `aten._linalg_eigh` / "
        "`aten._linalg_svd` / `aten.linalg_pinv`. `torch.linalg.eigvals` / `eig` return complex "
        "tensors, which ONNX runtimes do not carry: they have no fix (ONX511).",
        "def forward(self, x):\n    return torch.linalg.svdvals(x)[..., 0]",
        "def forward(self, x):\n    return _onnx_linalg_svdvals(x)[..., 0]",
        "Safe: outside export every helper returns the torch op itself (it branches on "
        "`torch.onnx.is_in_onnx_export()`, False in eager): bit-identical in eager. The exported "
        "Jacobi rotations (a fixed number of sweeps, unrolled over the static matrix "
        "size) round differently from LAPACK; eigenvectors and singular vectors are unique only "
        "up to sign (and to a rotation within repeated values) and may come out as the negative of "
        "torch's; pinv and matrix_rank may decide differently for a singular value within "
        "rounding of the tolerance.",
        code,
    )

    def cases(self, decomposition, node, ctx):
        if decomposition.key != "linalg_matrix_norm":
            return decomposition.catalog_cases
        value = literal(argument(node, "ord", 1), "fro")  # the default 'fro' exports
        if value in (2, 2.0):
            return ("linalg.matrix_norm ord=2",)
        if value in (-2, -2.0):
            return ("linalg.matrix_norm ord=-2",)
        if value == "nuc":
            return ("linalg.matrix_norm nuc",)
        if value is not NOT_LITERAL:
            return ("linalg.matrix_norm fro",)  # 'fro', +-1, +-inf: sums and maxima, exported
        return decomposition.catalog_cases  # not a literal: it may be a failing order


RULES = [LinalgFactorisation, SpectralLinalg]
