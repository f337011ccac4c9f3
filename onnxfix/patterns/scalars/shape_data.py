"""ONX205's whole shapes reached through names: a parameter every call binds to a shape, and
the call its own fix keeps for an empty shape."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_whole_shape
from onnxfix.rewriter.tree_walk import walk


def shape_passed_in(data: ast.expr, ctx: FunctionContext, depth: int = 2) -> bool:
    """A parameter every call in the file binds to a whole shape (DEYO's head, given
    `imgsz = x.shape[2:]`, then `torch.tensor(imgsz)`), directly or through the caller's own
    name bound once to one, or its own parameter so bound."""
    if depth == 0 or not isinstance(data, ast.Name) or not ctx.is_parameter(data.id) or ctx.assignments(data.id):
        return False
    bindings = ctx.parameter_bindings(data.id)
    return bool(bindings) and all(_whole_shape_value(value, caller, depth) for caller, value in bindings)


def _whole_shape_value(value: ast.expr, ctx: FunctionContext, depth: int) -> bool:
    if is_whole_shape(value):
        return True
    if not isinstance(value, ast.Name):
        return False
    assigned = ctx.assignments(value.id)
    if not assigned:
        return shape_passed_in(value, ctx, depth - 1)
    return len(assigned) == 1 and isinstance(assigned[0], ast.expr) and is_whole_shape(assigned[0])


def empty_shape_branch(node: ast.Call, data: ast.expr, ctx: FunctionContext) -> bool:
    """``... if len(S) else torch.tensor(S)``: the call the whole-shape fix keeps for an empty S."""
    parent = ctx.parent(node)
    test = parent.test if isinstance(parent, ast.IfExp) and parent.orelse is node else None
    return (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len"
            and len(test.args) == 1 and ctx.segment(test.args[0]) == ctx.segment(data))


def side_effect_free(node: ast.expr) -> bool:
    """Names, attributes, `.shape`, `.size(...)` / `.dim()` with constant arguments, constant
    indices and slices: reading it again reads the same thing and changes nothing (not
    `self.bn(x).shape`, which runs the layer, nor `next(it).shape`)."""
    for part in walk(node):
        if isinstance(part, ast.Call):
            if not (isinstance(part.func, ast.Attribute) and part.func.attr in ("size", "dim")
                    and all(isinstance(a, (ast.Constant, ast.UnaryOp)) for a in part.args) and not part.keywords):
                return False
        elif not isinstance(part, (ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Constant, ast.UnaryOp,
                                   ast.USub, ast.Load, ast.Tuple)):
            return False
    return True
