"""ONX532: the matrix transposes `Tensor.mT`, `Tensor.mH`, `Tensor.H` and `adjoint()`, which the
legacy exporter has no symbolic for (`aten::mT`, `aten::mH`, `aten::matrix_H`; torch's OpInfo
probe, docs/opdb.md) -> the `transpose(-2, -1)` (and `conj()`) they are defined as."""

from __future__ import annotations

import ast

from onnxfix import opdb_catalog
from onnxfix.config import LEGACY
from onnxfix.patterns.numpy_interop.region import is_numpy_call
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc

# spelling -> what ATen computes for it (aten/src/ATen/native/TensorShape.cpp: mT is
# `self.transpose(-2, -1)`, mH `mT().conj()`, matrix_H (2-D only) `transpose(0, 1).conj()`)
DEFINITIONS = {
    "Tensor.mT": ".transpose(-2, -1)",
    "Tensor.mH": ".transpose(-2, -1).conj()",
    "Tensor.adjoint": ".transpose(-2, -1).conj()",
    "Tensor.H": ".transpose(0, 1).conj()",
}
PROPERTIES = frozenset({"mT", "mH", "H"})


class LegacyMatrixTranspose(Rule):
    code = "ONX532"
    name = "legacy-matrix-transpose"
    summary = "`Tensor.mT` / `mH` / `H` / `adjoint()`: no legacy symbolic; the transpose they are defined as"
    triggers = ("mT", "mH", "H", "adjoint")
    exporters = (LEGACY,)
    fix_availability = "always"
    default_safety = "safe"
    doc = RuleDoc(
        what="Finds, when the project targets the legacy exporter, the matrix transposes `x.mT`, "
             "`x.mH`, `x.H`, `x.adjoint()` and `torch.adjoint(x)` on tensors.",
        why="The legacy (TorchScript) exporter has no symbolic for `aten::mT`, `aten::mH` or "
            "`aten::matrix_H` (UnsupportedOperatorError at every opset; torch's OpInfo probe, "
            "docs/opdb.md); the dynamo exporter decomposes them. GPyTorch's variational "
            "strategies (`chol.mT` in `solve_triangular`) fail this way.",
        example="def forward(self, a, b):\n    return a.mT @ b",
        use_instead="def forward(self, a, b):\n    return a.transpose(-2, -1) @ b",
        fix_safety="Safe: ATen defines `mT` as `transpose(-2, -1)`, `mH` and `adjoint` as that and "
                   "`conj()`, `H` as `transpose(0, 1).conj()` of a matrix: the same view, the same "
                   "op, bit-identical by construction (a lazy conjugation on complex tensors, a "
                   "no-op on real ones). Not offered on NumPy arrays (`a.transpose(-2, -1)` is a "
                   "different call there) or where the receiver is known not to be a tensor.",
        references=("https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/TensorShape.cpp",),
    )

    def visit_Attribute(self, node: ast.Attribute, ctx: FunctionContext):
        if node.attr not in PROPERTIES or not isinstance(node.ctx, ast.Load) or not self._tensor(node.value, ctx, node.attr):
            return
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return  # `x.H(...)`: a method of something else
        yield from self._finding(node, f"Tensor.{node.attr}", node, node, ctx)

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if node.keywords:
            return
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "adjoint" and not node.args and self._tensor(func.value, ctx, "adjoint"):
            yield from self._finding(node, "Tensor.adjoint", func, node, ctx)
        elif ctx.qualname(func) == "torch.adjoint" and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
            yield from self._finding(node, "Tensor.adjoint", node.args[0], node, ctx, whole=True)

    def _tensor(self, receiver: ast.expr, ctx: FunctionContext, attr: str) -> bool:
        """A tensor, not a NumPy array (`ndarray.mT` exists); for the short `H`, known to be one."""
        known = ctx.tensors.is_tensor(receiver)
        if known is False or is_numpy_call(receiver, ctx) or (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")):
            return False
        return known is True if attr == "H" else True

    def _finding(self, node, spelling, receiver, replaced, ctx, whole=False):
        """``receiver``: the argument of `torch.adjoint(x)` (``whole``), else the `x.attr`
        attribute whose `.attr` (and the call's parentheses, ``replaced``) is rewritten."""
        failed = opdb_catalog.fails_always(spelling)
        if LEGACY not in failed:
            return  # the installed torch's probe no longer measures it failing
        source = ctx.file.source
        if whole:  # `torch.adjoint(x)` -> `x.transpose(-2, -1).conj()`
            text = operand(ctx.segment(receiver), receiver, ATOM) + DEFINITIONS[spelling]
            edit = ctx.replace(replaced, text)
        else:  # the receiver's text (and any comment in it) kept: only `.attr` (and `()`) changes
            edit = Edit(_dot_before(source.text, source.span(receiver)[1] - len(receiver.attr)),
                        source.span(replaced)[1], DEFINITIONS[spelling])
        shown = spelling.replace("Tensor.", "x.") + ("()" if spelling == "Tensor.adjoint" else "")
        fix = Fix(f"Use `{DEFINITIONS[spelling].lstrip('.')}`", (edit,), safe=True)
        yield ctx.report(self, node, f"`{shown}` has no symbolic in the legacy exporter ({failed[LEGACY].error}); "
                         f"it is `x{DEFINITIONS[spelling]}`, which exports", fix=fix)


def _dot_before(text: str, position: int) -> int:
    """The offset of the `.` an attribute name at ``position`` follows (`(a @ b) .mH`: the
    receiver's closing parenthesis is not part of its node, so its span cannot say)."""
    dot = position - 1
    while text[dot] != ".":
        dot -= 1
    return dot


RULES = [LegacyMatrixTranspose]
