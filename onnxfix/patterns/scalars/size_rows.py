"""ONX205's comprehensions over rows of sizes: transformers' DETR post-processing, given
`target_sizes=[(height, width)]` by its caller, builds `torch.Tensor([i[0] for i in target_sizes])`.

The comprehension reads one item of each row (or each row itself); the rows are a non-empty list
or tuple literal, here or at every call that binds the parameter the comprehension runs over, and
the items read are Python numbers computed from sizes. Each element then becomes a 0-d tensor and
the stack is the 1-d tensor the builder made from the list, with the sizes kept in the graph.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.scalars.size_numbers import size_number
from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.bindings import bound_once
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.tree_walk import walk

MAX_DEPTH = 3  # callers followed up from the comprehension


def comprehension_of_sizes(data: ast.expr, ctx: FunctionContext) -> bool:
    """``data`` is `[row[k] for row in ROWS]` or `[row for row in ROWS]` (a list comprehension)
    whose ROWS are known, none empty, and whose elements read are numbers
    computed from sizes, at least one of them a size."""
    if not isinstance(data, ast.ListComp) or len(data.generators) != 1:
        return False  # a generator: `torch.tensor(gen)` raises, a fix would make it run
    loop = data.generators[0]
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
        return False
    index = _row_index(data.elt, loop.target.id)
    if index is False:
        return False
    found = _rows_of_sizes(loop.iter, index, ctx, MAX_DEPTH)
    return bool(found) and any(found)


def _row_index(element: ast.expr, variable: str) -> int | None | bool:
    """None when the element is the row itself, k for `row[k]` (a constant int), False otherwise."""
    if isinstance(element, ast.Name) and element.id == variable:
        return None
    if (isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) and element.value.id == variable
            and int_constant(element.slice) is not None):
        return int_constant(element.slice)
    return False


def _rows_of_sizes(source: ast.expr, index: int | None, ctx: FunctionContext, depth: int) -> list[bool] | None:
    """For each row of ``source``, whether the item read is a size; None when a row is unknown, an
    item is no number computed from sizes, or there are no rows (a parameter: at every call)."""
    source = bound_once(source, ctx)
    if isinstance(source, (ast.List, ast.Tuple)):
        items = [_item(row, index) for row in source.elts]
        if not items or any(item is None for item in items):
            return None
        numbers = [size_number(item, ctx) for item in items]
        return [from_size for _, from_size in numbers] if all(number for number, _ in numbers) else None
    if not (isinstance(source, ast.Name) and depth and ctx.is_parameter(source.id)):
        return None
    if ctx.assignments(source.id) or _mutated(source.id, ctx):
        return None
    found: list[bool] = []

    def holds(caller: FunctionContext, argument: ast.expr) -> bool:
        rows = _rows_of_sizes(argument, index, caller, depth - 1)
        found.extend(rows or ())
        return rows is not None

    return found if ctx.across_calls("size rows", source.id, holds) else None


def _item(row: ast.expr, index: int | None) -> ast.expr | None:
    if index is None:
        return None if isinstance(row, ast.Starred) else row
    if not isinstance(row, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in row.elts):
        return None
    return row.elts[index] if -len(row.elts) <= index < len(row.elts) else None


def _mutated(name: str, ctx: FunctionContext) -> bool:
    """A container method that changes it (`rows.append(...)`), an item stored or deleted, or an
    augmented assignment: the rows at the call are then not the rows read."""
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                and node.func.attr in CONTAINER_MUTATORS:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return True
    return False
