"""Tensors of the model itself whose rows are a model constant: a loop over them is not a loop
over an input size (ONX603)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.attr_changes import REBOUND
from onnxfix.rewriter.context import FunctionContext


def model_tensor(node: ast.expr, ctx: FunctionContext, depth: int = 2) -> bool:
    """A tensor of the model itself (its rows a model constant: YOLO's `for i, stride in
    enumerate(strides)` over `self.stride`), or a parameter every call in the file binds to one."""
    if ctx.is_self_attr(node) and _stored_after_init(node.attr, ctx):
        return False  # a table forward replaces (`self.grid = torch.arange(h)...`) has the input's rows
    if ctx.sizes.is_model_tensor(node) or _literal_table(ctx.self_attr_value(node) if ctx.is_self_attr(node) else None, ctx):
        return True
    if depth == 0 or not isinstance(node, ast.Name) or ctx.assignments(node.id):
        return False
    bindings = ctx.parameter_bindings(node.id)
    return bool(bindings) and all(model_tensor(value, caller, depth - 1) for caller, value in bindings)


def _literal_table(value: ast.expr | None, ctx: FunctionContext) -> bool:
    """`torch.tensor([8.0, 16.0, 32.0])` in __init__: a model constant's number of rows."""
    return (isinstance(value, ast.Call) and ctx.file.module.scope.qualname(value.func) in ("torch.tensor", "torch.as_tensor")
            and bool(value.args) and isinstance(value.args[0], (ast.List, ast.Tuple))
            and all(isinstance(e, ast.Constant) for e in value.args[0].elts))


def _stored_after_init(attr: str, ctx: FunctionContext) -> bool:
    """A function of the file other than an __init__ rebinds `<x>.<attr>` (or registers it)."""
    return REBOUND in ctx.file.module.changes_of(attr)


