"""ONX303's fixes for in-place writes through a view made by a method of the tensor itself:
`x.narrow(d, start, length).op_(...)` (a slice of one dim) and `x.diagonal(...).fill_(v)`."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant, is_number
from onnxfix.rewriter.precedence import ARITH, operand
from onnxfix.rewriter.rule import Edit, Fix, Helper

FILL_DIAGONAL = Helper("_onnx_fill_diagonal_view", helper_source("fill_diagonal_view"))
_FILLS = frozenset({"fill_", "copy_", "zero_"})


def method_view_fix(statement: ast.Expr, view: ast.Call, ctx: FunctionContext) -> Fix | None:
    """The fix of `statement` (`<view>.op_(...)`) when ``view`` is `x.narrow(...)` or
    `x.diagonal(...)` of a name `x`, or None."""
    method = view.func.attr
    if method == "narrow":
        return _narrow_fix(view, ctx)
    if method == "diagonal":
        return _diagonal_fill_fix(statement.value, view, ctx)
    return None


def _narrow_fix(view: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`x.narrow(d, s, n)` -> `x[:, ..., s:s + n]` (d literal, s and n non-negative ints): the same
    elements as a basic subscript of `x`, through which the legacy exporter writes. Where
    `narrow` raises (past the end) the slice clips instead."""
    arguments = _arguments(view, ("dim", "start", "length"))
    if arguments is None:
        return None
    dim, start, length = arguments
    dim = int_constant(dim)
    if dim is None or not ctx.ints.is_nonnegative_int(start) or not ctx.ints.is_nonnegative_int(length):
        return None  # (a negative length, which narrow rejects, would count from the end of a slice)
    stop = _operand(length, ctx) if _is_zero(start) else f"{ctx.segment(start)} + {_operand(length, ctx)}"
    bounds = f"{'' if _is_zero(start) else ctx.segment(start)}:{stop}"
    if dim >= 0:
        index = ", ".join([":"] * dim + [bounds])
    else:
        index = ", ".join(["...", bounds] + [":"] * (-dim - 1))
    return Fix("Write through a subscript of the tensor itself", (ctx.replace(view, f"{ctx.segment(view.func.value)}[{index}]"),),
               safe=True)


def _diagonal_fill_fix(call: ast.Call, view: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`x.diagonal(offset, dim1, dim2).fill_(v)` / `.copy_(v)` / `.zero_()` with a number v ->
    `_onnx_fill_diagonal_view(x, v, offset, dim1, dim2)`: a masked fill of the same elements."""
    method = call.func.attr
    if method not in _FILLS or call.keywords or len(call.args) != (0 if method == "zero_" else 1):
        return None
    value = "0" if method == "zero_" else ctx.segment(call.args[0])
    if method != "zero_" and not (is_number(call.args[0]) or _is_bool(call.args[0])):
        return None  # a tensor copied in may have the diagonal's shape: not one value
    arguments = _arguments(view, ("offset", "dim1", "dim2"), defaults=(0, 0, 1))
    if arguments is None:
        return None
    texts = [ctx.segment(a) if isinstance(a, ast.AST) else str(a) for a in arguments]
    text = f"_onnx_fill_diagonal_view({ctx.segment(view.func.value)}, {value}, {', '.join(texts)})"
    return Fix("Fill the diagonal's elements of the tensor itself (helper added to the file)",
               (Edit(*ctx.file.source.span(call), text),), safe=True, imports=("torch",), helpers=(FILL_DIAGONAL,))


def _arguments(call: ast.Call, names: tuple[str, ...], defaults: tuple | None = None) -> list | None:
    """The call's arguments by position or keyword, in ``names`` order (a default where one is
    given), or None for starred arguments, unknown keywords or a missing one."""
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(names):
        return None
    values: list = list(call.args) + [None] * (len(names) - len(call.args))
    for keyword in call.keywords:
        if keyword.arg not in names or values[names.index(keyword.arg)] is not None:
            return None
        values[names.index(keyword.arg)] = keyword.value
    for i, value in enumerate(values):
        if value is None:
            if defaults is None:
                return None
            values[i] = defaults[i]
    return values


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and type(node.value) is int


def _is_bool(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is bool


def _operand(node: ast.AST, ctx: FunctionContext) -> str:
    """``node``'s text, parenthesized unless it binds tighter than `+` (a `:=` would not parse in a slice)."""
    return operand(ctx.segment(node), node, ARITH + 1)
