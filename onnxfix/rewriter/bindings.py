"""The expression a local name stands for, where reading it again gives the same value: ONX402's
`math.ceil(n_frames)` after `n_frames = (length - k) / stride + 1`, ONX203's `int(f)` after
`f = self.new_sr * length / self.old_sr`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.none_defaults import rebound_elsewhere
from onnxfix.rewriter.statements import block_of, enclosing_statement, single_name_assignment

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def bound_once(argument: ast.AST, ctx: "FunctionContext") -> ast.AST:
    """The expression a local name is bound to, when reading that expression where the name is
    read gives the same value: the name and every name the expression reads bound once (the
    latter by plain assignment or unpacking, or parameters never assigned), both the binding and
    the read in the function's own straight-line code (no loop, comprehension or lambda around
    either), and no in-place method call or attribute store between them. Else the argument."""
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
    if not (_straight_line(value, ctx) and _straight_line(argument, ctx)):
        return argument
    if _mutation_between(value, argument, ctx):
        return argument
    return value


def _straight_line(node: ast.AST, ctx: "FunctionContext") -> bool:
    """No loop, comprehension, lambda or nested function between ``node`` and the function."""
    for ancestor in ctx.enclosing(node):
        if ancestor is ctx.fn.node:
            return True
        if isinstance(ancestor, (*_SCOPES, *_LOOPS)):
            return False
    return False  # not found in the function: nothing is known


def _mutation_between(first: ast.AST, last: ast.AST, ctx: "FunctionContext") -> bool:
    """An in-place method call (`x.t_()`) or an attribute store (`self.k = ...`) in the source
    between two nodes of the function."""
    start, end = (first.end_lineno, first.end_col_offset), (last.lineno, last.col_offset)
    for node in ast.walk(ctx.fn.node):
        if not hasattr(node, "lineno") or not start <= (node.lineno, node.col_offset) <= end:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
                and not node.func.attr.endswith("__"):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            return True
    return False


def _never_rebound(name: str, ctx: "FunctionContext") -> bool:
    """A parameter never assigned, or a local assigned once by ``name = expression`` or by
    unpacking (``b, t, c = x.shape``), not by a loop or a ``with``."""
    values = ctx.assignments(name)
    if ctx.is_parameter(name):
        return not values
    return len(values) == 1 and isinstance(values[0], (ast.expr, ast.Assign))


def _size_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == "size"


def reaching_value(read: ast.Name, ctx: "FunctionContext") -> ast.expr | None:
    """The value a read of a local name sees where straight-line code decides it: the nearest
    `name = value` before the read's statement, in its block or an enclosing one, with no other
    binding of the name in between (nested blocks included) and no loop around the read binding
    the name (a later binding would reach it on the next turn). ABINet's `out = (a == b)`, then
    `out = ((out.cumsum(dim) == 1) & out)...` rebinds `out`: the cumsum reads the comparison.
    None where it is not decided so (a parameter, a branch, a loop, a nested scope's name)."""
    name = read.id
    if not isinstance(read.ctx, ast.Load) or ctx.inner_scope(read) is not None or rebound_elsewhere(ctx.fn.node, name):
        return None
    if any(isinstance(a, _LOOPS) and _binds(a, name) for a in _ancestors_in_function(read, ctx)):
        return None
    current = enclosing_statement(read, ctx)
    while current is not None and current is not ctx.fn.node:
        block = block_of(current, ctx)
        if not block:
            return None
        for previous in reversed(block[:block.index(current)]):
            if _binds(previous, name):
                return previous.value if isinstance(previous, ast.Assign) and single_name_assignment(previous) == name \
                    else None
        current = enclosing_statement(ctx.parent(current), ctx)
    return None


def _ancestors_in_function(node: ast.AST, ctx: "FunctionContext"):
    for ancestor in ctx.ancestors(node):
        if ancestor is ctx.fn.node:
            return
        yield ancestor


def _binds(statement: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
               for n in ast.walk(statement))
