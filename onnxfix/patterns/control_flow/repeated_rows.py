"""ONX603: rows repeated by data-dependent counts -> torch.repeat_interleave."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import is_row, is_zero, loop_length_source, uses_name_elsewhere
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import (
    comments_outside,
    name_loads,
    next_statement,
    previous_statement,
    replace_statements,
    single_name_assignment,
)


# -- ONX603: rows repeated by data-dependent counts -> torch.repeat_interleave -------------------
def repeated_rows_loop(node: ast.For, ctx: FunctionContext) -> Fix | None:
    """`out = []` / `for i in range(x.shape[0]): out.append(<x[i] repeated n[i] times>)` /
    `return torch.cat(out, dim=0)` (or `y = torch.cat(...)`)."""
    source_name = loop_length_source(node.iter)
    if source_name is None or node.orelse or len(node.body) != 1 or not isinstance(node.target, ast.Name):
        return None
    appended = _appended(node.body[0])
    if appended is None:
        return None
    accumulator, value = appended
    counts = _repeated_row(value, source_name, node.target.id)
    before, after = previous_statement(node, ctx), next_statement(node, ctx)
    if counts is None or not _is_empty_list(before, accumulator) or after is None:
        return None
    concatenated = _concatenation(after, accumulator, ctx)
    if concatenated is None or uses_name_elsewhere(node.target.id, node, ctx):
        return None
    if name_loads(accumulator, ctx) != 2 or len({source_name, counts, accumulator, node.target.id}) != 4:
        return None  # the list is read elsewhere, or the names collide
    comments = comments_outside(ctx, before, [], after)
    if comments is None:
        return None
    torch_name, imports = ctx.torch_name()
    call = f"{torch_name}.repeat_interleave({source_name}, {counts}, dim=0)"
    new = f"return {call}" if isinstance(after, ast.Return) else f"{single_name_assignment(after)} = {call}"
    edit = replace_statements(ctx, before, after, new, comments)
    return Fix("Repeat the rows with `torch.repeat_interleave`", (edit,), safe=False, imports=imports)


def repeated_rows_comprehension(node: ast.comprehension, ctx: FunctionContext) -> Fix | None:
    """`torch.cat([<x[i] repeated n[i] times> for i in range(x.shape[0])], dim=0)`."""
    listcomp = ctx.parent(node)
    call = ctx.parent(listcomp) if isinstance(listcomp, ast.ListComp) else None
    source_name = loop_length_source(node.iter)
    if call is None or source_name is None or node.ifs or node.is_async or not isinstance(node.target, ast.Name):
        return None
    if len(listcomp.generators) != 1 or not _is_concatenation_of(call, listcomp, ctx):
        return None
    counts = _repeated_row(listcomp.elt, source_name, node.target.id)
    if counts is None or node.target.id in (source_name, counts):
        return None
    torch_name, imports = ctx.torch_name()
    text = f"{torch_name}.repeat_interleave({source_name}, {counts}, dim=0)"
    return Fix("Repeat the rows with `torch.repeat_interleave`", (ctx.replace(call, text),), safe=False, imports=imports)


def _appended(statement: ast.stmt) -> tuple[str, ast.expr] | None:
    """(list name, value) of `name.append(value)`."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return None
    call = statement.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "append" and isinstance(call.func.value, ast.Name)):
        return None
    if len(call.args) != 1 or call.keywords:
        return None
    return call.func.value.id, call.args[0]


def _repeated_row(value: ast.expr, source: str, index: str) -> str | None:
    """The counts tensor N of `source[index].expand(N[index], -1)` / `.repeat(N[index], 1)`,
    the count optionally wrapped in `int(...)` / `.item()`."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.keywords):
        return None
    if not is_row(value.func.value, source, index) or len(value.args) != 2:
        return None
    rest = {"expand": -1, "repeat": 1}.get(value.func.attr)
    last = value.args[1]
    if rest is None or not _is_int_constant(last, rest):
        return None
    return _count_source(value.args[0], index)


def _is_int_constant(node: ast.expr, number: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_int_constant(node.operand, -number)
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == number


def _count_source(node: ast.expr, index: str) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and len(node.args) == 1:
        return _count_source(node.args[0], index)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
        node = node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name):
        return node.value.id if node.slice.id == index else None
    return None


def _is_empty_list(statement: ast.stmt | None, name: str) -> bool:
    return (
        statement is not None
        and single_name_assignment(statement) == name
        and isinstance(statement.value, ast.List)
        and not statement.value.elts
    )


def _concatenation(statement: ast.stmt, accumulator: str, ctx: FunctionContext) -> ast.Call | None:
    """`return torch.cat(acc, dim=0)` or `y = torch.cat(acc, 0)`."""
    value = statement.value if isinstance(statement, (ast.Return, ast.Assign)) else None
    if isinstance(statement, ast.Assign) and single_name_assignment(statement) in (None, accumulator):
        return None
    if not isinstance(value, ast.Call):
        return None
    arguments = value.args[:1]
    if not (arguments and isinstance(arguments[0], ast.Name) and arguments[0].id == accumulator):
        return None
    return value if _is_concatenation_of(value, arguments[0], ctx) else None


def _is_concatenation_of(call: ast.AST, first: ast.expr, ctx: FunctionContext) -> bool:
    """`torch.cat(first)`, `torch.cat(first, 0)` or `torch.cat(first, dim=0)` (also concat)."""
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is first):
        return False
    if ctx.qualname(call.func) not in ("torch.cat", "torch.concat", "torch.concatenate"):
        return False
    dims = call.args[1:] + [k.value for k in call.keywords if k.arg in ("dim", "axis")]
    if len(dims) + 1 != len(call.args) + len(call.keywords):
        return False  # out= or another keyword
    return len(dims) <= 1 and all(is_zero(d) for d in dims)


