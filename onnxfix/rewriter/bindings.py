"""The expression a local name stands for, where reading it again gives the same value: ONX402's
`math.ceil(n_frames)` after `n_frames = (length - k) / stride + 1`, ONX203's `int(f)` after
`f = self.new_sr * length / self.old_sr`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext


def bound_once(argument: ast.AST, ctx: "FunctionContext") -> ast.AST:
    """The expression a local name is bound to, when it is bound once and every name that
    expression reads is never rebound (so the expression means the same where the name is
    read); else the argument itself."""
    if not isinstance(argument, ast.Name) or ctx.is_parameter(argument.id):
        return argument
    values = ctx.assignments(argument.id)
    if len(values) != 1 or isinstance(values[0], ast.stmt):
        return argument
    (value,) = values
    for read in ast.walk(value):
        if isinstance(read, ast.Name) and not _never_rebound(read.id, ctx):
            return argument
        if isinstance(read, (ast.NamedExpr, ast.Lambda)) or (isinstance(read, ast.Call) and not _size_call(read)):
            return argument
    return value


def _never_rebound(name: str, ctx: "FunctionContext") -> bool:
    """A parameter never assigned, or a local assigned once by ``name = expression`` or by
    unpacking (``b, t, c = x.shape``), not by a loop or a ``with``."""
    values = ctx.assignments(name)
    if ctx.is_parameter(name):
        return not values
    return len(values) == 1 and isinstance(values[0], (ast.expr, ast.Assign))


def _size_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == "size"
