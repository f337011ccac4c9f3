"""Python loops that map each element of a NumPy array to a number and collect the numbers into
a new array (I-BERT's fixed-point scales)::

    tmp = []
    for m in mantissa:
        tmp.append(int(decimal.Decimal(m * 2**31).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)))
    out = np.array(tmp)

The loop is one elementwise map, so torch computes it as one tensor expression of the array
(``out = _onnx_round_half_away(mantissa * 2**31).to(torch.int64)``), which both exporters follow,
where a loop over the elements unrolls into constants. Each scalar step has its elementwise twin
(``int`` truncates as ``.to(torch.int64)`` does; a unit ``Decimal.quantize`` rounds an exact
float as the twin of its rounding mode). The fix is unsafe all the same: the values it collects
as Python ints become int64 (NumPy's array of them, unless one overflows it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import SYMBOLS
from onnxfix.rewriter.statements import block_of, sibling_statement, single_name_assignment, statement_removal
from onnxfix.rewriter.tree_walk import walk

# decimal's rounding modes (to a unit quantum) and their elementwise twins on exact floats.
# ROUND_UP and ROUND_HALF_DOWN have none in torch, and ROUND_DOWN's (torch.trunc) does not export
# under legacy; their loops stay.
_DECIMAL_ROUNDING = {
    "ROUND_HALF_EVEN": "{torch}.round({x})",
    "ROUND_HALF_UP": "_onnx_round_half_away({x})",
    "ROUND_FLOOR": "{torch}.floor({x})",
    "ROUND_CEILING": "{torch}.ceil({x})",
}
_MATH_ROUNDING = {"math.floor": "floor", "math.ceil": "ceil"}
_OPERATORS = {op: SYMBOLS[op] for op in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)}


class _NotElementwise(Exception):
    """A step of the loop body with no elementwise tensor twin."""


@dataclass(frozen=True)
class ElementLoop:
    """``init`` (``tmp = []``), ``loop`` (appending one number per element), ``collect``
    (``np.array(tmp)``) and the tensor expression that replaces ``collect``."""

    init: ast.Assign
    loop: ast.For
    collect: ast.Call
    expression: str
    helpers: tuple[str, ...]  # onnxfix support helpers the expression calls


def find_element_loops(ctx: FunctionContext, ndarray_names: set[str], nodes: list[ast.AST]) -> list[ElementLoop]:
    loops = []
    for node in nodes:
        if isinstance(node, ast.For):
            found = _element_loop(node, ctx, ndarray_names, nodes)
            if found is not None:
                loops.append(found)
    return loops


def _element_loop(loop: ast.For, ctx: FunctionContext, ndarray_names: set[str], nodes: list[ast.AST]) -> ElementLoop | None:
    if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Name) and loop.iter.id in ndarray_names):
        return None
    if loop.orelse or not loop.body or not _is_append(loop.body[-1]):
        return None
    list_name = loop.body[-1].value.func.value.id
    init = sibling_statement(loop, ctx, -1)
    if not (single_name_assignment(init) == list_name and isinstance(init.value, ast.List) and not init.value.elts):
        return None
    collect = _collecting_call(list_name, loop, ctx, nodes)
    if collect is None or statement_removal(init, ctx) is None or statement_removal(loop, ctx) is None:
        return None  # the list or the loop shares its lines with other code
    torch_name = ctx.torch_name()[0]
    env = {loop.target.id: loop.iter.id}
    helpers: set[str] = set()
    try:
        for statement in loop.body[:-1]:
            name = single_name_assignment(statement)
            if name is None or name in env or name == list_name:
                return None
            env[name] = _vector(statement.value, env, ctx, torch_name, helpers)
        expression = _vector(loop.body[-1].value.args[0], env, ctx, torch_name, helpers)
    except _NotElementwise:
        return None
    if not _depends(loop.body[-1].value.args[0], env) or not _unchanged_between(loop, collect, ctx, env):
        return None
    return ElementLoop(init, loop, collect, expression, tuple(sorted(helpers)))


def _is_append(statement: ast.stmt) -> bool:
    call = statement.value if isinstance(statement, ast.Expr) else None
    return (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords
    )


def _collecting_call(list_name: str, loop: ast.For, ctx: FunctionContext, nodes: list[ast.AST]) -> ast.Call | None:
    """The one ``np.array(tmp)`` (or ``np.asarray``) after the loop, in the same block: the list's
    only other use."""
    uses = [n for n in nodes if isinstance(n, ast.Name) and n.id == list_name]
    if len(uses) != 3 or len(ctx.assignments(list_name)) != 1:
        return None  # the init, the append and the conversion
    call = ctx.parent(uses[-1])
    if not (
        isinstance(call, ast.Call) and ctx.qualname(call.func) in ("numpy.array", "numpy.asarray")
        and call.args == [uses[-1]] and not call.keywords and call.lineno > loop.end_lineno
    ):
        return None
    return call


def _unchanged_between(loop: ast.For, collect: ast.Call, ctx: FunctionContext, env: dict) -> bool:
    """No statement between the loop and the conversion rebinds a name the expression reads
    (the expression moves to the conversion)."""
    block = block_of(loop, ctx)
    after = block[block.index(loop) + 1 :]
    holder = next((s for s in after if s.lineno <= collect.lineno <= s.end_lineno), None)
    if holder is None:
        return False
    read = {n.id for n in walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - set(env)
    read |= {loop.iter.id}
    between = after[: after.index(holder)]
    return not any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in read
        for statement in between for n in walk(statement)
    )


def _vector(node: ast.expr, env: dict[str, str], ctx: FunctionContext, torch_name: str, helpers: set[str]) -> str:
    """The tensor expression computing ``node`` for every element at once."""
    if not _depends(node, env):  # a loop invariant: the same number for every element
        atomic = isinstance(node, (ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.Subscript))
        return ctx.segment(node) if atomic else f"({ctx.segment(node)})"
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left = _vector(node.left, env, ctx, torch_name, helpers)
        right = _vector(node.right, env, ctx, torch_name, helpers)
        return f"({left} {_OPERATORS[type(node.op)]} {right})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return f"(-{_vector(node.operand, env, ctx, torch_name, helpers)})"
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
        return _vector_call(node, env, ctx, torch_name, helpers)
    raise _NotElementwise


def _vector_call(node: ast.Call, env: dict, ctx: FunctionContext, torch_name: str, helpers: set[str]) -> str:
    builtin = node.func.id if isinstance(node.func, ast.Name) and ctx.is_builtin(node.func.id) else None
    if builtin in ("int", "float"):
        inner = node.args[0]
        rounded = _decimal_rounding(inner, env, ctx, torch_name, helpers)
        value = rounded if rounded is not None else _vector(inner, env, ctx, torch_name, helpers)
        return f"{value}.to({torch_name}.{'int64' if builtin == 'int' else 'float64'})"
    if builtin == "abs":
        return f"{_vector(node.args[0], env, ctx, torch_name, helpers)}.abs()"
    rounding = _MATH_ROUNDING.get(ctx.qualname(node.func) or "")
    if rounding:  # a Python int, collected as int64
        return f"{torch_name}.{rounding}({bare(_vector(node.args[0], env, ctx, torch_name, helpers))}).to({torch_name}.int64)"
    raise _NotElementwise


def _decimal_rounding(node: ast.expr, env: dict, ctx: FunctionContext, torch_name: str, helpers: set[str]) -> str | None:
    """``decimal.Decimal(x).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)``: x (a
    float, which Decimal holds exactly) rounded to an integer by the mode's twin."""
    if not (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "quantize"
        and _is_decimal(node.func.value, ctx) and len(node.args) == 1 and _is_unit_decimal(node.args[0], ctx)
    ):
        return None
    modes = [k.value for k in node.keywords if k.arg == "rounding"]
    qualname = ctx.qualname(modes[0]) if len(modes) == 1 and len(node.keywords) == 1 else None
    template = _DECIMAL_ROUNDING.get((qualname or "").removeprefix("decimal."))
    if template is None:
        raise _NotElementwise  # the context's default mode, or one with no twin
    if "_onnx_" in template:
        helpers.add("round_half_away")
    value = _vector(node.func.value.args[0], env, ctx, torch_name, helpers)
    return template.format(torch=torch_name, x=bare(value))


def _is_decimal(node: ast.expr, ctx: FunctionContext) -> bool:
    return isinstance(node, ast.Call) and ctx.qualname(node.func) == "decimal.Decimal" and len(node.args) == 1 and not node.keywords


def _is_unit_decimal(node: ast.expr, ctx: FunctionContext) -> bool:
    return _is_decimal(node, ctx) and isinstance(node.args[0], ast.Constant) and node.args[0].value in (1, "1")


def bare(text: str) -> str:
    """``text`` without the parentheses `_vector` put around a whole operation (an argument
    needs none)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(text) - 1:
            return text  # `(a) * (b)`: the first parenthesis closes early
    return text[1:-1]


def _depends(node: ast.AST, env: dict) -> bool:
    return any(isinstance(n, ast.Name) and n.id in env for n in walk(node))
