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
from onnxfix.patterns.control_flow.row_bounds import vectorised_bound
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import block_of, comments_outside, enclosing_statement, replace_statements
from onnxfix.rewriter.tree_walk import walk


def length_fill_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for a loop whose last statement writes a constant into row `i` of a
    tensor, along one dim up to (or from) that row's length, or a bound the statements before it
    compute from the row's number (MMOCR's `valid_width = min(w, math.ceil(w * valid_ratio))`)."""
    if node.orelse or not isinstance(node.body[-1], ast.Assign):
        return None, ""
    rows = _rows(node, ctx)
    if rows is None:
        return None, ""
    index, lengths, length_of_row, bound_rows = rows
    statement = node.body[-1]
    computed = _computed_bounds(node, length_of_row, ctx)
    if computed is None or len(statement.targets) != 1 or not _constant_value(statement.value, ctx):
        return None, ""
    written = _row_part_write(statement.targets[0], index)
    if written is None:
        return None, ""
    tensor, part, row, before = written
    bound = part.upper if part.upper is not None else part.lower
    if (part.lower is None) == (part.upper is None) or part.step is not None:
        return None, ""
    if not (_is_length(bound, lengths, length_of_row, index) or _is_computed(bound, computed)):
        return None, ""
    if computed and not (isinstance(bound, ast.Name) and list(computed) == [bound.id]):
        return None, ""  # a statement the fill does not read (it could do anything): left alone
    suffix = part.lower is not None
    names = {tensor, lengths}
    if len(names) != 2 or not ctx.tensors.is_tensor(ast.Name(tensor, ast.Load())):
        return None, ""
    if uses_name_elsewhere(index, node, ctx, (row,)) or any(
            _read_after(name, node, ctx) for name in [*computed, *([length_of_row] if length_of_row else [])]):
        return None, ""
    comments = comments_outside(ctx, node, [])
    if comments is None:
        return None, ""
    torch_name, imports = ctx.torch_name()
    if _is_computed(bound, computed):
        rows_text = f"{torch_name}.as_tensor({lengths}, dtype={torch_name}.float64, device={tensor}.device)"
        invariant = _invariant_in(node, index)
        lengths_tensor = vectorised_bound(computed[bound.id], length_of_row, rows_text, invariant, ctx, torch_name)
        if lengths_tensor is None:
            return None, ""
    else:
        lengths_tensor = lengths if ctx.tensors.is_tensor(ast.Name(lengths, ast.Load())) else (
            f"{torch_name}.as_tensor({lengths}, device={tensor}.device)")
    positions = f"{torch_name}.arange({tensor}.shape[{before + 1}], device={tensor}.device)"
    compare = ">=" if suffix else "<"
    mask = f"({positions}[None, :] {compare} {lengths_tensor}[:, None])"
    trailing = _broadcast(tensor, before)
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
    if computed:
        why += (f"; the bound is computed in float64 from `{lengths}`'s numbers, as Python computes it from a "
                "list of numbers (not from a float32 tensor's)")
    if bound_rows == tensor:
        why = "a negative length slices from the end in the loop, and compares below every position in the mask"
    return Fix("Fill every row's part with one masked fill", (edit,), safe=False, imports=imports), why


def _broadcast(tensor: str, before: int) -> str:
    """The reshape that puts the (rows, positions) mask on dims 0 and ``before + 1`` of ``tensor``."""
    if before == 0:
        return f".reshape({tensor}.shape[:2] + (1,) * ({tensor}.dim() - 2))"
    ones = ", ".join(["1"] * before)
    return (f".reshape(({tensor}.shape[0], {ones}, {tensor}.shape[{before + 1}]) + (1,) * ({tensor}.dim() - "
            f"{before + 2}))")


def _computed_bounds(loop: ast.For, element: str | None, ctx: FunctionContext) -> dict[str, ast.expr] | None:
    """{name: value} of the statements before the write, each `name = <expression>`, only for the
    enumerate form (the row's own number); None for any other statement."""
    leading = loop.body[:-1]
    if leading and element is None:
        return None
    found = {}
    for statement in leading:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            return None
        found[statement.targets[0].id] = statement.value
    return found


def _is_computed(bound: ast.expr | None, computed: dict[str, ast.expr]) -> bool:
    return isinstance(bound, ast.Name) and bound.id in computed


def _invariant_in(loop: ast.For, index: str):
    """A name the loop neither binds nor indexes by: one value on every turn."""
    stored = {n.id for n in walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    return lambda name: name not in stored and name != index


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
    if source is None or not isinstance(target, ast.Name) or len(node.body) != 1:
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


def _row_part_write(target: ast.expr, index: str) -> tuple[str, ast.Slice, ast.Name, int] | None:
    """(tensor, slice, the row index, how many whole dims come before the slice) of `T[i, a:b]`,
    `T[i, :, a:b, :]` or `T[i][a:b]`."""
    if not isinstance(target, ast.Subscript):
        return None
    if isinstance(target.slice, ast.Tuple) and len(target.slice.elts) >= 2:
        row, *rest = target.slice.elts
        base = target.value
        parts = [k for k, e in enumerate(rest) if not _whole(e)]
        if len(parts) != 1:
            return None
        before, part = parts[0], rest[parts[0]]
    elif isinstance(target.value, ast.Subscript) and isinstance(target.slice, ast.Slice):
        row, part, base, before = target.value.slice, target.slice, target.value.value, 0
    else:
        return None
    if not (isinstance(row, ast.Name) and row.id == index and isinstance(part, ast.Slice) and isinstance(base, ast.Name)):
        return None
    return base.id, part, row, before


def _whole(element: ast.expr) -> bool:
    return isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None


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
    """A name the loop binds (the enumerate value, a computed bound) is read after the loop, where
    Python keeps its last value: a read that no later `name = ...` before it in its own block (or
    an enclosing one) rebinds first (MMOCR computes `valid_width` again in the next loop)."""
    end = (loop.end_lineno, loop.end_col_offset)
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and (n.lineno, n.col_offset) > end
        and not _rebound_first(n, loop, ctx)
        for n in walk(ctx.fn.node)
    )


def _rebound_first(read: ast.Name, loop: ast.For, ctx: FunctionContext) -> bool:
    current = enclosing_statement(read, ctx)
    while current is not None and current is not ctx.fn.node:
        block = block_of(current, ctx)
        if not block:
            return False
        if any(previous.lineno > loop.end_lineno and isinstance(previous, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == read.id for t in previous.targets)
               for previous in block[:block.index(current)]):
            return True
        around = ctx.parent(current)  # a later loop's own target: `for i, valid_ratio in ...` again
        if isinstance(around, ast.For) and around.lineno > loop.end_lineno and any(current is b for b in around.body) \
                and any(isinstance(t, ast.Name) and t.id == read.id for t in walk(around.target)):
            return True
        current = enclosing_statement(around, ctx)
    return False
