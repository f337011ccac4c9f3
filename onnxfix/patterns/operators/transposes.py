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
from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

# spelling -> (the dims ATen transposes, whether it conjugates): aten/src/ATen/native/TensorShape.cpp,
# mT is `self.transpose(-2, -1)`, mH and adjoint `mT().conj()`, matrix_H `transpose(0, 1).conj()`;
# on a 0-d tensor each is the tensor itself (conjugated), where `transpose` raises
DEFINITIONS = {
    "Tensor.mT": ("-2, -1", False),
    "Tensor.mH": ("-2, -1", True),
    "Tensor.adjoint": ("-2, -1", True),
    "Tensor.H": ("0, 1", True),
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
        use_instead="def forward(self, a, b):\n    return (a.transpose(-2, -1) if a.dim() else a) @ b",
        fix_safety="Safe where the receiver is a name or an attribute chain: ATen defines `mT` as "
                   "`transpose(-2, -1)`, `mH` and `adjoint` as that and `conj()`, `H` as "
                   "`transpose(0, 1).conj()` of a matrix, and each as the tensor itself (conjugated) "
                   "on a 0-d tensor, where `transpose` raises: `(x.transpose(-2, -1) if x.dim() else "
                   "x)` is the same view by the same op for every rank (bit-identical by construction; "
                   "the rank is a constant to both exporters). Other receivers (a call, an expression) "
                   "are not read twice: the plain transpose, unsafe for a 0-d value. Not offered on "
                   "NumPy arrays (`a.transpose(-2, -1)` is a different call there) or where the "
                   "receiver is known not to be a tensor.",
        references=("https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/TensorShape.cpp",),
    )

    def visit_Attribute(self, node: ast.Attribute, ctx: FunctionContext):
        if node.attr not in PROPERTIES or not isinstance(node.ctx, ast.Load) or not self._tensor(node.value, ctx, node.attr):
            return
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return  # `x.H(...)`: a method of something else
        yield from self._finding(node, f"Tensor.{node.attr}", node.value, node, ctx)

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if node.keywords:
            return
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "adjoint" and not node.args and self._tensor(func.value, ctx, "adjoint"):
            yield from self._finding(node, "Tensor.adjoint", func.value, node, ctx)
        elif ctx.qualname(func) == "torch.adjoint" and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
            yield from self._finding(node, "Tensor.adjoint", node.args[0], node, ctx)

    def _tensor(self, receiver: ast.expr, ctx: FunctionContext, attr: str) -> bool:
        """A tensor, not a NumPy array (`ndarray.mT` exists); for the short `H`, known to be one."""
        known = ctx.tensors.is_tensor(receiver)
        if known is False or is_numpy_call(receiver, ctx) or (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")):
            return False
        return known is True if attr == "H" else True

    def _finding(self, node, spelling, receiver, replaced, ctx):
        """``replaced`` (`x.mT`, `x.adjoint()`, `torch.adjoint(x)`) rewritten as the transpose of
        ``receiver``: exact for every rank where the receiver is a name or attribute chain (read
        twice: `x.dim()` picks the 0-d case, which the transpose refuses), unsafe otherwise."""
        failed = opdb_catalog.fails_always(spelling)
        if LEGACY not in failed:
            return  # the installed torch's probe no longer measures it failing
        dims, conjugated = DEFINITIONS[spelling]
        conj = ".conj()" if conjugated else ""
        text = ctx.segment(receiver)
        if dotted_parts(receiver) is not None:
            new, safe = f"({text}.transpose({dims}) if {text}.dim() else {text}){conj}", True
        else:
            new, safe = f"{operand(text, receiver, ATOM)}.transpose({dims}){conj}", False
        shown = spelling.replace("Tensor.", "x.") + ("()" if spelling == "Tensor.adjoint" else "")
        why = "" if safe else " (unsafe: on a 0-d tensor it is the tensor itself, where the transpose raises)"
        fix = Fix(f"Use `transpose({dims})`{' and `conj()`' if conjugated else ''}", (ctx.replace(replaced, new),), safe=safe)
        yield ctx.report(self, node, f"`{shown}` has no symbolic in the legacy exporter ({failed[LEGACY].error}); "
                         f"it is `x.transpose({dims}){conj}`, which exports{why}", fix=fix)


RULES = [LegacyMatrixTranspose]
