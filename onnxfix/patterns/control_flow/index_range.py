"""ONX603: a list of the row numbers, built by a comprehension over a size, used as an index.

`idx0 = [[x] for x in range(batch_size)]` then `h[idx0, mention_idx, :]` (an entity-linking head
picking each row's own positions) builds a Python list as long as the batch: both exporters unroll
the comprehension and keep the example's batch. Indexing converts the list into an int64 tensor
before it indexes, so `torch.arange(batch_size)` (`.unsqueeze(1)` for the list of one-element
lists) is the same index: the same values, dtype and shape, through the same `index` op.

Only uses the conversion is known for are rewritten: the list as an element of a multi-axis index
(`h[idx, ...]`), or a flat list of ints as the whole index. A list of lists as the whole index is
read as a tuple of indices (NumPy's old sequence rule), which a tensor is not.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import range_count
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

WHY_UNSAFE = "`{name}` is not known to be a tensor (a NumPy array indexed by a tensor is not the same)"


def index_range_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `[x for x in range(n)]` / `[[x] for x in range(n)]` used as an index."""
    listcomp = _parent(node, ctx)
    if not isinstance(listcomp, ast.ListComp) or len(listcomp.generators) != 1 or node.ifs or node.is_async:
        return None, ""
    count, column = range_count(node.iter), _element_shape(listcomp.elt, node.target)
    if count is None or column is None or _reads(count, node.target):
        return None, ""
    indexed = _indexed_values(listcomp, column, ctx)
    if not indexed:
        return None, ""
    known = [ctx.tensors.is_tensor(value) for value in indexed]
    if False in known:
        return None, ""  # a NumPy array or a list: indexed by a tensor it is not the same
    torch, imports = ctx.torch_name()
    text = f"{torch}.arange({ctx.segment(count)})" + (".unsqueeze(1)" if column else "")
    unknown = [value for value, tensor in zip(indexed, known) if tensor is None]
    why = WHY_UNSAFE.format(name=ctx.segment(unknown[0])) if unknown else ""
    if not ctx.ints.is_nonnegative_int(count):
        why = f"`{ctx.segment(count)}` is not proven non-negative (range() of a negative count is empty, arange raises)"
    fix = Fix("Index with `torch.arange` of the size", (ctx.replace(listcomp, text),), safe=not why, imports=imports)
    return fix, why


def _parent(node: ast.AST, ctx: FunctionContext) -> ast.AST | None:
    """From the whole function's parent map: the uses come after the comprehension."""
    return next(iter(ctx.enclosing(node)), None)


def _element_shape(element: ast.expr, target: ast.expr) -> bool | None:
    """False for `x` (a flat list), True for `[x]` (a column), None for anything else."""
    if not isinstance(target, ast.Name):
        return None
    if isinstance(element, ast.Name) and element.id == target.id:
        return False
    if (isinstance(element, ast.List) and len(element.elts) == 1 and isinstance(element.elts[0], ast.Name)
            and element.elts[0].id == target.id):
        return True
    return None


def _reads(node: ast.AST, target: ast.Name) -> bool:
    return any(isinstance(n, ast.Name) and n.id == target.id for n in walk(node))


def _indexed_values(listcomp: ast.ListComp, column: bool, ctx: FunctionContext) -> list[ast.expr]:
    """The values the list indexes, when every use of it is an index the conversion is known
    for; else []. The list is used in place or through one name bound to it once."""
    uses = _uses(listcomp, ctx)
    indexed = [_index_use(use, column, ctx) for use in uses]
    return indexed if uses and all(v is not None for v in indexed) else []


def _uses(listcomp: ast.ListComp, ctx: FunctionContext) -> list[ast.expr]:
    statement = _parent(listcomp, ctx)
    if not (isinstance(statement, ast.Assign) and statement.value is listcomp):
        return [listcomp]
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
        return []
    name = statement.targets[0].id
    if len(ctx.assignments(name)) != 1 or ctx.is_parameter(name):
        return []
    named = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name]
    if any(not isinstance(n.ctx, ast.Load) for n in named if n is not statement.targets[0]):
        return []  # deleted, rebound in a loop or a comprehension, augmented
    return [n for n in named if n is not statement.targets[0]]


def _index_use(use: ast.expr, column: bool, ctx: FunctionContext) -> ast.expr | None:
    """The indexed value when ``use`` is an element of a multi-axis index `v[use, ...]` (read,
    not assigned), or (a flat list only) the whole index `v[use]`."""
    parent = _parent(use, ctx)
    if isinstance(parent, ast.Tuple) and use in parent.elts:
        subscript = _parent(parent, ctx)
        if isinstance(subscript, ast.Subscript) and subscript.slice is parent:
            return subscript.value if isinstance(subscript.ctx, ast.Load) else None
        return None
    if not column and isinstance(parent, ast.Subscript) and parent.slice is use and isinstance(parent.ctx, ast.Load):
        return parent.value
    return None
