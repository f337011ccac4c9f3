"""ONX603: each row's own selection, concatenated -> one gather.

`torch.cat([torch.index_select(A[i], 0, B[i]).unsqueeze(0) for i in range(n)], dim=0)` (Reformer's
axial position encodings; also `A[i].index_select(0, B[i])` and `torch.stack([...])`) selects, in
every row of A, the positions B names for that row: `gather` along dim 1 does it for all rows at
once, with no loop for the exporters to unroll.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import is_row, is_zero, loop_length_source, range_count
from onnxfix.patterns.control_flow.repeated_rows import CONCATENATIONS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

STACKS = frozenset({"torch.stack"})
WHY_UNSAFE = ("needs `{a}` at least 2-D (a 1-D `{a}` has 0-d rows, which index_select takes and gather does not); "
              "for a count past the rows of `{a}` or `{b}` both raise, with other errors")


def gathered_rows_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for the rows' selections concatenated along dim 0."""
    listcomp = ctx.parent(node)
    call = ctx.parent(listcomp) if isinstance(listcomp, ast.ListComp) else None
    if call is None or len(listcomp.generators) != 1 or node.ifs or node.is_async or not isinstance(node.target, ast.Name):
        return None, ""
    count = range_count(node.iter)
    row = stacked_row(call, listcomp, ctx)
    selected = _row_selection(row, node.target.id, ctx) if row is not None else None
    if count is None or selected is None:
        return None, ""
    source, index = selected
    n = ctx.segment(count)
    if node.target.id in (source, index) or any(isinstance(c, ast.Name) and c.id == node.target.id for c in walk(count)):
        return None, ""
    whole = loop_length_source(node.iter)  # `range(A.shape[0])`: every row of A, no slice
    rows = {name: name if name == whole else f"{name}[:{n}]" for name in (source, index)}
    text = (f"{rows[source]}.gather(1, {rows[index]}.long().reshape({n}, -1, *[1] * ({source}.dim() - 2))"
            f".expand(-1, -1, *{source}.shape[2:]))")
    fix = Fix("Select every row's positions with one `gather`", (ctx.replace(call, text),), safe=False)
    return fix, WHY_UNSAFE.format(a=source, b=index)


def stacked_row(call: ast.AST, listcomp: ast.ListComp, ctx: FunctionContext) -> ast.expr | None:
    """The per-row value of `torch.cat([v.unsqueeze(0) for ...], dim=0)` or `torch.stack([v for ...])`."""
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is listcomp):
        return None
    dims = [*call.args[1:], *(k.value for k in call.keywords if k.arg == "dim")]
    if len(dims) > 1 or len(call.args) + len(call.keywords) != 1 + len(dims) or not all(is_zero(d) for d in dims):
        return None
    name = ctx.qualname(call.func)
    if name in STACKS:
        return listcomp.elt
    element = listcomp.elt
    if (name in CONCATENATIONS and isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute)
            and element.func.attr == "unsqueeze" and len(element.args) == 1 and not element.keywords
            and is_zero(element.args[0])):
        return element.func.value
    return None


def _row_selection(row: ast.expr, loop_index: str, ctx: FunctionContext) -> tuple[str, str] | None:
    """(A, B) of `torch.index_select(A[i], 0, B[i])` or `A[i].index_select(0, B[i])`."""
    if not isinstance(row, ast.Call) or any(k.arg is None for k in row.keywords):
        return None
    keywords = {k.arg: k.value for k in row.keywords}
    if ctx.qualname(row.func) == "torch.index_select":
        arguments = [*row.args, *(keywords[k] for k in ("input", "dim", "index") if k in keywords)]
    elif isinstance(row.func, ast.Attribute) and row.func.attr == "index_select" and ctx.qualname(row.func) is None:
        arguments = [row.func.value, *row.args, *(keywords[k] for k in ("dim", "index") if k in keywords)]
    else:
        return None
    if len(arguments) != 3 or len(keywords) + len(row.args) + (ctx.qualname(row.func) is None) != 3:
        return None
    source, dim, index = arguments
    if not (is_zero(dim) and _row_name(source, loop_index) and _row_name(index, loop_index)):
        return None
    return source.value.id, index.value.id


def _row_name(node: ast.expr, loop_index: str) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and is_row(node, node.value.id, loop_index)
