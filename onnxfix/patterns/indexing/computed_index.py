"""ONX703's second form: a write through an index the data selected (`output[inds] = pooled`,
`inds` from `nonzero()`: detectron2's ROIPooler, pytorch#49852). The legacy exporter writes the value
with a Reshape to the indexed shape it saw while tracing: an export example that selects one row
bakes that one row in, and onnxruntime fails for any other count ("The input tensor cannot be
reshaped"). `index_put_` with the same index is exported with the count kept (measured on torch
2.13: a one-row example fails with the subscript write and is OK with `index_put_`)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix

# calls whose result is (or unbinds to) an integer index the data chose
SELECTING = frozenset({"nonzero", "argwhere"})


def selected_index(index: ast.expr, ctx: FunctionContext, depth: int = 2) -> bool:
    """``index`` is computed by `nonzero()` / `argwhere()` (through names assigned once, and a
    function of the file returning one: detectron2's `nonzero_tuple(mask)[0]`)."""
    if depth < 0:
        return False
    if isinstance(index, ast.Name):
        values = ctx.assignments(index.id)
        return len(values) == 1 and not isinstance(values[0], ast.stmt) and selected_index(values[0], ctx, depth)
    for node in ast.walk(index):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in SELECTING and not (name == "nonzero" and any(k.arg == "as_tuple" for k in node.keywords)):
                return True
            if isinstance(func, ast.Name) and _returns_selection(func.id, ctx, depth - 1):
                return True
    return False


def _returns_selection(name: str, ctx: FunctionContext, depth: int) -> bool:
    for node in ctx.file.module.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            returns = [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
            return bool(returns) and all(
                any(isinstance(c, ast.Call) and getattr(c.func, "attr", None) in SELECTING for c in ast.walk(r))
                for r in returns)
    return False


def computed_index_fix(node: ast.Assign, target: ast.Subscript, ctx: FunctionContext) -> Fix | None:
    """`out[inds] = value` -> `out.index_put_((inds,), value)`: unsafe (index assignment converts a
    value of another dtype or device first; index_put_ refuses one)."""
    if isinstance(target.slice, ast.Tuple) or not isinstance(target.value, ast.Name):
        return None
    if not selected_index(target.slice, ctx) or ctx.tensors.is_tensor(target.value) is not True:
        return None
    if isinstance(node.value, ast.Constant) or ctx.tensors.is_tensor(node.value) is False:
        return None
    text = f"{target.value.id}.index_put_(({ctx.segment(target.slice)},), {ctx.segment(node.value)})"
    return Fix("Write with `index_put_`", (ctx.replace(node, text),), safe=False)
