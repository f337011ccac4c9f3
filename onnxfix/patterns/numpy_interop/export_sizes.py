"""A size turned into a NumPy value in code only the exporters run: TopFormer's, SeaFormer's and
Gold-YOLO's `get_shape`, `if torch.onnx.is_in_onnx_export(): shape = [i.cpu().numpy() for i in
shape]`. The legacy tracer hands out sizes as 0-d tensors; `.numpy()` makes each one a constant of
the example's size (a Reshape by the batch then fails in onnxruntime for another batch, a pooling
size is frozen). Left a traced size, it stays dynamic. Eager never runs the branch."""

from __future__ import annotations

import ast

from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import runs_only_while_exporting
from onnxfix.rewriter.rule import Fix

_KEEPING = ("cpu", "detach")  # `.cpu()`, `.detach()` before `.numpy()`: the same value


def export_only_size(call: ast.Call, ctx: FunctionContext) -> ast.expr | None:
    """The size behind `size.cpu().numpy()` when `size` is an element of a tensor's shape and the
    call runs only while exporting; None otherwise."""
    receiver = call.func.value
    while (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)
           and receiver.func.attr in _KEEPING and not receiver.args and not receiver.keywords):
        receiver = receiver.func.value
    if not _shape_element(receiver, ctx) or not runs_only_while_exporting(call, ctx.ancestors(call)):
        return None
    return receiver


def _shape_element(node: ast.AST, ctx: FunctionContext) -> bool:
    """`t.shape[k]`, `t.size(k)`, or a comprehension's variable over `t.shape` / `t.size()`."""
    if isinstance(node, ast.Subscript):
        return _shape_of_tensor(node.value, ctx)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        return len(node.args) == 1 and not node.keywords
    if isinstance(node, ast.Name):
        comprehension = ctx.inner_scope(node)
        generators = getattr(comprehension, "generators", ())
        return any(isinstance(g.target, ast.Name) and g.target.id == node.id and _shape_of_tensor(g.iter, ctx)
                   for g in generators)
    return False


def _shape_of_tensor(node: ast.AST, ctx: FunctionContext) -> bool:
    """`t.shape`, `t.size()`, or a name bound to one where it is read (`shape = tensor.shape`)."""
    if isinstance(node, ast.Name):
        value = reaching_value(node, ctx)
        return value is not None and not isinstance(value, ast.Name) and _shape_of_tensor(value, ctx)
    return (isinstance(node, ast.Attribute) and node.attr == "shape") or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
        and not node.args and not node.keywords)


def size_fix(call: ast.Call, size: ast.expr, ctx: FunctionContext) -> Fix:
    return Fix("Keep the traced size (the branch runs only while exporting)",
               (ctx.replace(call, ctx.segment(size)),), safe=True)
