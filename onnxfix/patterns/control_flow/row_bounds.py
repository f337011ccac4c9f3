"""A row's bound computed in Python from its own number, as the same math on all rows at once.

    for i, valid_ratio in enumerate(valid_ratios):          # MMOCR's SATRN, NRTR, SAR
        valid_width = min(w, math.ceil(w * valid_ratio))
        mask[i, :, :valid_width] = 1

Python computes `w * valid_ratio` in double and `math.ceil` / `math.floor` / `int` / `round` give
an int. The same steps on a float64 tensor of the rows' numbers give the same doubles (an int
converts to double exactly below 2**53; +, -, *, / round once, as Python's do), and the integral
results compare with int64 positions exactly. `round` is half-to-even in both; `int` truncates as
`torch.trunc` does; `min` / `max` of the bound with a number are `clamp`.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number

_INTEGRAL = {"math.ceil": "ceil", "math.floor": "floor"}
_BUILTIN_INTEGRAL = {"int": "trunc", "round": "round"}
_ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
# what a part computes: a tensor of the rows' values (integral or not), or a Python number
ROWS, INT_ROWS, NUMBER, INT_NUMBER = "rows", "int rows", "number", "int number"
_TENSORS = (ROWS, INT_ROWS)


def vectorised_bound(expression: ast.expr, element: str, rows: str, invariant, ctx: FunctionContext,
                     torch: str) -> str | None:
    """The text of ``expression`` computed for every row at once, ``rows`` (a float64 tensor of
    the rows' numbers) standing for ``element``, when the result is integral; None otherwise.
    ``invariant(name)`` says a name keeps one value over the loop."""
    found = _vectorised(expression, element, rows, invariant, ctx, torch)
    return found[0] if found is not None and found[1] == INT_ROWS else None


def _vectorised(node: ast.expr, element: str, rows: str, invariant, ctx: FunctionContext, torch: str):
    if isinstance(node, ast.Name):
        if node.id == element:
            return rows, ROWS
        return (node.id, INT_NUMBER if ctx.ints.is_int(node) else NUMBER) if invariant(node.id) else None
    if is_number(node):
        literal = node.operand if isinstance(node, ast.UnaryOp) else node
        return ctx.segment(node), INT_NUMBER if type(literal.value) is int else NUMBER
    parts = _parts(node, element, rows, invariant, ctx, torch)
    if parts is None:
        return None
    if not any(kind in _TENSORS for _, kind in parts):  # Python's own arithmetic on numbers: kept
        integral = all(kind == INT_NUMBER for _, kind in parts) and not isinstance(getattr(node, "op", None), ast.Div)
        return ctx.segment(node), INT_NUMBER if integral or _integral_call(node, ctx) else NUMBER
    if isinstance(node, ast.BinOp):
        integral = all(kind in (INT_ROWS, INT_NUMBER) for _, kind in parts) and not isinstance(node.op, ast.Div)
        return f"({parts[0][0]} {_ARITHMETIC[type(node.op)]} {parts[1][0]})", INT_ROWS if integral else ROWS
    if len(parts) == 1:  # math.ceil / math.floor / int / round
        inner = parts[0][0][1:-1] if isinstance(node.args[0], ast.BinOp) else parts[0][0]  # its own parentheses
        return f"{torch}.{_integral_call(node, ctx)}({inner})", INT_ROWS
    tensors = [p for p in parts if p[1] in _TENSORS]
    if len(tensors) != 1:
        return None  # min / max of two row tensors: not a clamp
    (number,) = [p for p in parts if p[1] not in _TENSORS]
    bound = "max" if node.func.id == "min" else "min"
    integral = tensors[0][1] == INT_ROWS and number[1] == INT_NUMBER
    return f"{torch}.clamp({tensors[0][0]}, {bound}={number[0]})", INT_ROWS if integral else ROWS


def _parts(node: ast.expr, element, rows, invariant, ctx, torch):
    """The vectorised operands of arithmetic, a rounding call or a two-argument min / max."""
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        operands = [node.left, node.right]
    elif isinstance(node, ast.Call) and not node.keywords and (
            (len(node.args) == 1 and _integral_call(node, ctx))
            or (len(node.args) == 2 and _builtin(node, ctx) in ("min", "max"))):
        operands = node.args
    else:
        return None
    parts = [_vectorised(o, element, rows, invariant, ctx, torch) for o in operands]
    return None if any(p is None for p in parts) else parts


def _integral_call(node: ast.expr, ctx: FunctionContext) -> str | None:
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return None
    return _INTEGRAL.get(ctx.qualname(node.func) or "") or _BUILTIN_INTEGRAL.get(_builtin(node, ctx) or "")


def _builtin(node: ast.Call, ctx: FunctionContext) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) and ctx.is_builtin(node.func.id) else None
