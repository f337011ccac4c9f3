"""ONX305: a tensor built from literals (`torch.tensor([[1.0, 0.0, -1.0], ...])`) and then written in
place, which the legacy exporter records wrong.

kornia's `normal_transform_pixel` builds `tr_mat = torch.tensor([[1.0, 0.0, -1.0], ...])` and scales two
of its items in place (`tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom`). The legacy tracer registers
the `torch.tensor` result as a constant ("torch.tensor results are registered as constants in the
trace"), holding the tensor itself: the writes that follow change it, so the ONNX constant is the
written matrix and the graph applies the writes again (measured on torch 2.13: MVDet's ground-plane
warp, max abs error 0.94 at the constant). `.clone()` of the new tensor is the same values, dtype and
device, and the writes go to the clone, a graph value; the constant stays as built.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

BUILDERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "torch.LongTensor"})


def _literal(node: ast.AST) -> bool:
    """Numbers, and lists or tuples of them (a negative number is a unary minus)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _literal(node.operand)
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)


def _written(name: str, after: int, ctx: FunctionContext) -> ast.AST | None:
    """The first statement of the function after line ``after`` writing into `name` in place: an
    item or slice assignment (`t[0, 0] = ...`, `t[0] += ...`) or an in-place method (`t.mul_(2)`).
    By line, not by walk order (ast.walk goes breadth first: a write nested in a loop comes late)."""
    writes = []
    for node in walk(ctx.fn.node):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name for t in targets):
                writes.append(node)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and in_place_method(node.func.attr)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            writes.append(node)
    return min((w for w in writes if w.lineno > after), key=lambda w: w.lineno, default=None)


class ConstantWrittenInPlace(Rule):
    code = "ONX305"
    name = "constant-written-in-place"
    summary = "A tensor built from literals and then written in place: the legacy exporter's constant is the written tensor"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)  # torch.export records the writes on a copy of the constant (measured)
    triggers = ("tensor", "as_tensor", "Tensor", "FloatTensor", "LongTensor")
    doc = RuleDoc(
        what="Finds `name = torch.tensor(<literal numbers>)` (also `torch.as_tensor`, the typed constructors; any "
        "`dtype=`/`device=`), bound once in the function, whose items the function then writes in place "
        "(`name[i, j] = ...`, `name[k] += ...`, `name.mul_(...)`).",
        why="The legacy tracer registers the new tensor as a constant of the graph, holding the tensor object: "
        "the writes after it change that object, so the exported constant is the written tensor, and the graph "
        "applies the writes to it again (kornia's `normal_transform_pixel` in MVDet's ground-plane warp: silently "
        "wrong, max abs error 0.94 at the constant, measured on torch 2.13).",
        example="def forward(self, x):\n    m = torch.tensor([[1.0, 0.0], [0.0, 1.0]])\n"
        "    m[0, 0] = m[0, 0] * 2.0 / x.shape[-1]\n    return x @ m",
        use_instead="def forward(self, x):\n    m = torch.tensor([[1.0, 0.0], [0.0, 1.0]]).clone()\n"
        "    m[0, 0] = m[0, 0] * 2.0 / x.shape[-1]\n    return x @ m",
        fix_safety="Safe: `.clone()` of a tensor just built from literals has the same values, dtype and device, "
        "and nothing else holds the original, so every read and write sees what it did. Not with "
        "`requires_grad=` (a write into that leaf raises; into its clone it would not).",
        references=("https://github.com/kornia/kornia/blob/main/kornia/geometry/conversions.py",),
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        call, name = node.value, node.targets[0].id
        if not (isinstance(call, ast.Call) and ctx.qualname(call.func) in BUILDERS and len(call.args) == 1
                and _literal(call.args[0]) and all(k.arg in ("dtype", "device") for k in call.keywords)):
            return
        if len(ctx.assignments(name)) != 1 or ctx.is_parameter(name):
            return
        written = _written(name, node.lineno, ctx)
        if written is None:
            return
        end = ctx.file.source.span(call)[1]
        fix = Fix("Write into a clone of the built tensor", (Edit(end, end, ".clone()"),), safe=True)
        yield ctx.report(self, call, f"`{name}` is built from literals and written in place at line {written.lineno}: "
                         "the legacy exporter registers the built tensor as a constant and the writes change it, so "
                         "the exported constant is the written tensor and the writes apply twice; `.clone()` writes "
                         "into a copy", fix=fix)
