"""What a name bound from a call of the file's own function holds: the item every ``return`` of
that function gives it (``pad_h, pad_w = self.get_pad_shape(x)`` with ``return pad_h, pad_w``
there; ``n = count(x)`` with ``return n``). The ints oracle asks its questions of those items, in
the called function's context; tensor_inputs asks which parameters a callee uses as tensors.

A call counts only where the function it runs is certain within the file: a module function bound
once and not shadowed where it is called, a method of the caller's class that no class of the file
deriving from it overrides and no `self.<name> = ...` replaces, not a class method (a static one,
or a `@torch.jit.script` one, binds the arguments from its first parameter on).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

from onnxfix.rewriter.names import module_level_read

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

Returned = list[tuple["FunctionContext", ast.expr]]
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


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
    """(callee context, returned expression) for each ``return`` of the function ``call`` calls,
    in training-only branches too (the caller's rewrite runs there as well): the whole value, or
    its item at ``unpacked`` = (position, arity); None when not known (a return of nothing or of
    another length, a body that may end without one, a generator, an uncertain callee)."""
    callee = callee_context(ctx, call) if isinstance(call, ast.Call) else None
    if callee is None:
        return None
    body = callee.fn.node.body
    returns, generator = _returns(body)
    if generator or not returns or any(r.value is None for r in returns) or not _ends_in_exit(body):
        return None
    if unpacked is None:
        return [(callee, r.value) for r in returns]
    position, arity = unpacked
    if not all(isinstance(r.value, ast.Tuple) and len(r.value.elts) == arity for r in returns):
        return None
    return [(callee, r.value.elts[position]) for r in returns]


def all_returned(ctx: "FunctionContext", call: ast.expr, unpacked: tuple[int, int] | None, kind: str,
                 test: Callable[["FunctionContext", ast.expr], bool]) -> bool:
    """``test`` holds for every item the callee returns there (memoised per call and question);
    False when not known, and while the same question is answered higher up (a recursion proves
    nothing)."""
    key = ("returned", kind, id(call), unpacked)
    if key in ctx.cache:
        return ctx.cache[key]
    items = returned_items(ctx, call, unpacked)
    if not items:
        ctx.cache[key] = False
        return False
    progress = ctx.file.calls.in_progress
    if key in progress:
        return False
    progress.add(key)
    try:
        answer = all(test(callee, item) for callee, item in items)
    finally:
        progress.discard(key)
    ctx.cache[key] = answer
    return answer


def callee_context(ctx: "FunctionContext", call: ast.Call) -> "FunctionContext | None":
    """The context of the function ``call`` certainly runs (see the module docstring), when the
    export reaches it."""
    calls, func = ctx.file.calls, call.func
    if calls is None:
        return None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == ctx.self_name \
            and ctx.fn.cls is not None:
        node = ctx.fn.cls.methods.get(func.attr)
        if node is None or _overridden(func.attr, ctx) or func.attr in ctx.fn.cls.self_attrs:
            return None
    elif isinstance(func, ast.Name) and module_level_read(func, ctx) and ctx.file.module.bound_once(func.id):
        node = ctx.file.module.functions.get(func.id)
    else:
        return None
    if node is None or any(_simple_name(d) == "classmethod" for d in node.decorator_list):
        return None
    return calls.contexts.get(id(node))


def _overridden(method: str, ctx: "FunctionContext") -> bool:
    """A class of the file deriving (directly or not) from the caller's class defines ``method``."""
    own = ctx.fn.cls.name
    classes = ctx.file.module.classes
    derived, grew = {own}, True
    while grew:
        grew = False
        for info in classes.values():
            if info.name not in derived and any(_simple_name(b) in derived for b in info.node.bases):
                derived.add(info.name)
                grew = True
    return any(name != own and method in classes[name].methods for name in derived if name in classes)


def _simple_name(node: ast.expr) -> str | None:
    """`staticmethod`; `Base` of a base class `Base`, `mod.Base`, `Base[T]`."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _returns(body: list[ast.stmt]) -> tuple[list[ast.Return], bool]:
    """The function's own returns (nested functions and classes aside), and whether it yields."""
    returns, generator, stack = [], False, list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Return):
            returns.append(node)
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            generator = True
        stack.extend(ast.iter_child_nodes(node))
    return returns, generator


def _ends_in_exit(body: list[ast.stmt]) -> bool:
    """The body cannot fall off its end (an implicit None): it ends in a return or raise, or in
    an `if` whose every branch does."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _ends_in_exit(last.body) and _ends_in_exit(last.orelse)
