"""What a name bound from a call of the file's own function holds: the item every ``return`` of
that function gives it (``pad_h, pad_w = self.get_pad_shape(x)`` with ``return pad_h, pad_w``
there; ``n = count(x)`` with ``return n``). The oracles (ints, size lists) ask their question of
those items, in the called function's context.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

from onnxfix.rewriter.function_body import walk_function_body

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

Returned = list[tuple["FunctionContext", ast.expr]]


def target_position(assign: ast.Assign, name: str) -> tuple[int, int] | None:
    """(position, arity) of ``name`` among ``a, name, b = ...``'s targets; None for another shape
    of target (a starred or nested one, several targets)."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Tuple):
        return None
    targets = assign.targets[0].elts
    if not all(isinstance(t, ast.Name) for t in targets):
        return None
    position = next((i for i, t in enumerate(targets) if t.id == name), None)
    return None if position is None else (position, len(targets))


def returned_items(ctx: "FunctionContext", call: ast.expr, unpacked: tuple[int, int] | None = None) -> Returned | None:
    """(callee context, returned expression) for each ``return`` of the function ``call`` calls:
    the whole value, or its item at ``unpacked`` = (position, arity); None when not known (a return
    of nothing or of another length, a callee the export does not reach)."""
    callee = callee_context(ctx, call) if isinstance(call, ast.Call) else None
    if callee is None:
        return None
    returns = [n for n, _ in walk_function_body(callee.fn.node) if isinstance(n, ast.Return)]
    if not returns or any(r.value is None for r in returns):
        return None
    if unpacked is None:
        return [(callee, r.value) for r in returns]
    position, arity = unpacked
    if not all(isinstance(r.value, ast.Tuple) and len(r.value.elts) == arity for r in returns):
        return None
    return [(callee, r.value.elts[position]) for r in returns]


def all_returned(ctx: "FunctionContext", call: ast.expr, unpacked: tuple[int, int] | None, kind: str,
                 test: Callable[["FunctionContext", ast.expr], bool]) -> bool:
    """``test`` holds for every item the callee returns there; False when not known, and while
    the same question is answered higher up (a recursion proves nothing)."""
    items = returned_items(ctx, call, unpacked)
    if not items:
        return False
    key = ("returned", kind, id(call), unpacked)
    progress = ctx.file.calls.in_progress
    if key in progress:
        return False
    progress.add(key)
    try:
        return all(test(callee, item) for callee, item in items)
    finally:
        progress.discard(key)


def callee_context(ctx: "FunctionContext", call: ast.Call) -> "FunctionContext | None":
    """The context of ``self.method(...)`` of the function's class or of a module function ``f(...)``,
    when the export reaches it."""
    calls, func = ctx.file.calls, call.func
    if calls is None:
        return None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == ctx.self_name \
            and ctx.fn.cls is not None:
        node = ctx.fn.cls.methods.get(func.attr)
    elif isinstance(func, ast.Name) and not ctx.assignments(func.id) and not ctx.is_parameter(func.id):
        node = ctx.file.module.functions.get(func.id)
    else:
        return None
    return calls.contexts.get(id(node)) if node is not None else None
