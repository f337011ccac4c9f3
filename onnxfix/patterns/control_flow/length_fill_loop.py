"""ONX603: a loop over the rows filling each row up to (or from) its own length -> one masked fill.

    for i in range(mask.shape[0]):
        mask[i, :lengths[i]] = 0          # also mask[i][:lengths[i]], mask[i, lengths[i]:]
    for i, n in enumerate(lengths):
        mask[i, :n] = 1

become `mask.masked_fill_(<arange over dim 1> < lengths[:, None], value)` (`>=` for a suffix):
the length masks of speech and NLP models (INSTRUCTOR's context masks, padding masks built per
utterance). In place, as the loop wrote: every alias of the tensor sees the same values. A bool mask
made by a factory with `dtype=torch.bool` takes `True` as `mask[...] = mask | <prefix>` (`False` as
`& ~`): onnxruntime has no bool Where and the legacy exporter no masked_fill_ of a Python bool
(HunyuanVideo's attention mask, its loop over a batch size unpacked from the input's shape).
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import loop_length_source, uses_name_elsewhere
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import comments_outside, replace_statements
from onnxfix.rewriter.tree_walk import walk


def length_fill_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for a loop whose one statement writes a constant into row `i` of a
    tensor, over dim 1 up to (or from) that row's length."""
    if node.orelse or len(node.body) != 1 or not isinstance(node.body[0], ast.Assign):
        return None, ""
    rows = _rows(node, ctx)
    if rows is None:
        return None, ""
    index, lengths, length_of_row, bound_rows = rows
    statement = node.body[0]
    if len(statement.targets) != 1 or not _constant_value(statement.value, ctx):
        return None, ""
    written = _row_prefix_write(statement.targets[0], index)
    if written is None:
        return None, ""
    tensor, part, row = written
    if not (_is_length(part.upper, lengths, length_of_row, index) or _is_length(part.lower, lengths, length_of_row, index)):
        return None, ""
    suffix = part.lower is not None
    if (part.lower is None) == (part.upper is None) or part.step is not None:
        return None, ""
    names = {tensor, lengths}
    if len(names) != 2 or not ctx.tensors.is_tensor(ast.Name(tensor, ast.Load())):
        return None, ""
    if uses_name_elsewhere(index, node, ctx, (row,)) or (length_of_row and _read_after(length_of_row, node, ctx)):
        return None, ""
    comments = comments_outside(ctx, node, [])
    if comments is None:
        return None, ""
    torch_name, imports = ctx.torch_name()
    lengths_tensor = lengths if ctx.tensors.is_tensor(ast.Name(lengths, ast.Load())) else (
        f"{torch_name}.as_tensor({lengths}, device={tensor}.device)")
    positions = f"{torch_name}.arange({tensor}.shape[1], device={tensor}.device)"
    compare = ">=" if suffix else "<"
    mask = f"({positions}[None, :] {compare} {lengths_tensor}[:, None])"
    trailing = f".reshape({tensor}.shape[:2] + (1,) * ({tensor}.dim() - 2))"
    new = f"{tensor}.masked_fill_({mask}{trailing}, {ctx.segment(statement.value)})"
    if _bool_tensor(tensor, node, ctx) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, bool):
        # a bool mask: True written is an `or`, False an `and not` (onnxruntime has no bool Where, the
        # legacy exporter no masked_fill_ with a Python bool): the same values, in place
        combined = f"{tensor} | {mask}{trailing}" if statement.value.value else f"{tensor} & ~{mask}{trailing}"
        new = f"{tensor}[...] = {combined}"  # in place; the legacy exporter has no `|=` on tensors
    edit = replace_statements(ctx, node, node, new, comments)
    why = (
        f"needs one length per row of `{tensor}` (`{lengths}` as long as `{tensor}.shape[0]`) and no negative "
        "length (a slice to a negative length counts from the end)"
    )
    if bound_rows == tensor:
        why = "a negative length slices from the end in the loop, and compares below every position in the mask"
    return Fix("Fill every row's part with one masked fill", (edit,), safe=False, imports=imports), why


def _rows(node: ast.For, ctx: FunctionContext) -> tuple[str, str, str | None, str | None] | None:
    """(index, lengths, the name of lengths[i] when enumerate gives it, the tensor whose rows
    `range` covers) for `for i in range(X.shape[0])` with `lengths[i]` in the body, or
    `for i, n in enumerate(lengths)`."""
    target, iterable = node.target, node.iter
    if (
        isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate"
        and len(iterable.args) == 1 and not iterable.keywords and isinstance(iterable.args[0], ast.Name)
        and isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(t, ast.Name) for t in target.elts)
    ):
        return target.elts[0].id, iterable.args[0].id, target.elts[1].id, None
    source = loop_length_source(iterable, ctx)
    if source is None or not isinstance(target, ast.Name):
        return None
    lengths = _indexed_lengths(node.body[0], target.id)
    return (target.id, lengths, None, source) if lengths else None


def _indexed_lengths(statement: ast.stmt, index: str) -> str | None:
    """The name L of the `L[i]` slice bound in the statement's target."""
    for sub in walk(statement.targets[0]) if isinstance(statement, ast.Assign) else ():
        if isinstance(sub, ast.Slice):
            for bound in (sub.lower, sub.upper):
                if (isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Name)
                        and isinstance(bound.slice, ast.Name) and bound.slice.id == index):
                    return bound.value.id
    return None


def _row_prefix_write(target: ast.expr, index: str) -> tuple[str, ast.Slice, ast.Name] | None:
    """(tensor, slice, the row index) of `T[i, a:b]` or `T[i][a:b]`."""
    if not isinstance(target, ast.Subscript):
        return None
    if isinstance(target.slice, ast.Tuple) and len(target.slice.elts) == 2:
        row, part = target.slice.elts
        base = target.value
    elif isinstance(target.value, ast.Subscript) and isinstance(target.slice, ast.Slice):
        row, part, base = target.value.slice, target.slice, target.value.value
    else:
        return None
    if not (isinstance(row, ast.Name) and row.id == index and isinstance(part, ast.Slice) and isinstance(base, ast.Name)):
        return None
    return base.id, part, row


def _is_length(bound: ast.expr | None, lengths: str, length_of_row: str | None, index: str) -> bool:
    if bound is None:
        return False
    if length_of_row is not None:
        return isinstance(bound, ast.Name) and bound.id == length_of_row
    return (isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Name) and bound.value.id == lengths
            and isinstance(bound.slice, ast.Name) and bound.slice.id == index)


def _constant_value(value: ast.expr, ctx: FunctionContext) -> bool:
    """A number, a bool or a float('-inf')-style constant: one value for every element."""
    if is_number(value) or (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
        return True
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "float"
            and ctx.is_builtin("float") and len(value.args) == 1 and isinstance(value.args[0], ast.Constant))


def _bool_tensor(name: str, loop: ast.For, ctx: FunctionContext) -> bool:
    """Bound last before the loop, not in a loop around it, to a bool tensor (HunyuanVideo's
    `torch.zeros(..., dtype=torch.bool)` mask; rebound after the loop is fine)."""
    if any(isinstance(a, (ast.For, ast.While, ast.AsyncFor)) for a in ctx.ancestors(loop)):
        return False
    before = [v for v in ctx.assignments(name) if v.lineno < loop.lineno]
    last = max(before, key=lambda v: (v.lineno, v.col_offset), default=None)
    return isinstance(last, ast.expr) and is_bool_tensor(last, ctx)


def _read_after(name: str, loop: ast.For, ctx: FunctionContext) -> bool:
    """The enumerate value is read after the loop (Python keeps it bound)."""
    end = (loop.end_lineno, loop.end_col_offset)
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and (n.lineno, n.col_offset) > end
        for n in walk(ctx.fn.node)
    )
