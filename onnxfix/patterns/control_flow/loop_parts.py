"""What the ONX603 loop fixes share: the loop's length source, the row it reads, the index's uses."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.tree_walk import walk


def loop_length_source(iterable: ast.expr, ctx=None) -> str | None:
    """The tensor name X of `range(X.shape[0])`, `range(X.size(0))`, `range(len(X))`; with ``ctx``
    also `range(n)` for an `n` bound once to one of those or unpacked first from `X.shape` /
    `X.size()` (HunyuanVideo's `batch_size, c, f, h, w = hidden_states.shape`)."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"):
        return None
    if len(iterable.args) != 1:
        return None
    bound = iterable.args[0]
    if isinstance(bound, ast.Name) and ctx is not None:
        return _named_first_size(bound.id, ctx)
    return _first_size_of(bound)


def _named_first_size(name: str, ctx) -> str | None:
    values = ctx.assignments(name)
    if len(values) != 1 or ctx.is_parameter(name):
        return None
    value = values[0]
    if isinstance(value, ast.Assign):  # `n, c, h, w = x.shape`
        target = value.targets[0] if len(value.targets) == 1 else None
        whole = value.value
        if not (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)
                and target.elts[0].id == name):
            return None
        if isinstance(whole, ast.Subscript) and isinstance(whole.slice, ast.Slice) and whole.slice.step is None \
                and (whole.slice.lower is None or is_zero(whole.slice.lower)):
            whole = whole.value  # `N, T = x.size()[:2]` (FireRedASR): the leading sizes, the first among them
        if isinstance(whole, ast.Call) and isinstance(whole.func, ast.Attribute) and whole.func.attr == "size" and not whole.args:
            receiver = whole.func.value  # `x.size()`, as `x.shape`
            return receiver.id if isinstance(receiver, ast.Name) else None
        if isinstance(whole, ast.Attribute) and whole.attr == "shape" and isinstance(whole.value, ast.Name):
            return whole.value.id
        return None
    return _first_size_of(value) if isinstance(value, ast.expr) else None


def _first_size_of(bound: ast.expr) -> str | None:
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len" and len(bound.args) == 1:
        return bound.args[0].id if isinstance(bound.args[0], ast.Name) else None
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape":
        if is_zero(bound.slice) and isinstance(bound.value.value, ast.Name):
            return bound.value.value.id
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and bound.func.attr == "size":
        if len(bound.args) == 1 and is_zero(bound.args[0]) and isinstance(bound.func.value, ast.Name):
            return bound.func.value.id
    return None


def range_count(iterable: ast.expr) -> ast.expr | None:
    """n of `range(n)` or `range(0, n)`."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
            and not iterable.keywords):
        return None
    if len(iterable.args) == 1:
        return iterable.args[0]
    if len(iterable.args) == 2 and is_zero(iterable.args[0]):
        return iterable.args[1]
    return None


def is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and int_constant(node) == 0  # unsigned `0` only


def is_row(node: ast.AST, source: str, index: str) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == source
        and isinstance(node.slice, ast.Name)
        and node.slice.id == index
    )


def rebound_by_other_loops(name: str, loop: ast.For, function: ast.AST) -> set[int]:
    """Ids of the nodes inside the other loops and comprehensions of ``function`` that bind
    ``name`` as their target: a read there is of their own variable, not ``loop``'s."""
    rebinding: set[int] = set()
    for node in walk(function):
        if node is loop:
            continue
        targets = []
        if isinstance(node, (ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            targets = [g.target for g in node.generators]
        # `for i, n in enumerate(...)` binds `i` too: look inside tuple targets
        if any(isinstance(t, ast.Name) and t.id == name for target in targets for t in walk(target)):
            rebinding.update(id(n) for n in walk(node))
    return rebinding


def uses_name_elsewhere(index: str, loop: ast.For, ctx: FunctionContext, allowed_reads: tuple[ast.AST, ...] = ()) -> bool:
    """The loop variable is read outside `X[i]` (and the ``allowed_reads``) in the body, or after
    the loop (Python keeps it bound); reads inside other loops or comprehensions that rebind it
    do not count."""
    allowed = {id(n.slice) for n in walk(loop.body[0]) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name)}
    allowed.update(id(n) for n in allowed_reads)
    inside = {id(n) for n in walk(loop)}
    rebinding = rebound_by_other_loops(index, loop, ctx.fn.node)
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Name) and node.id == index and isinstance(node.ctx, ast.Load):
            if id(node) in inside:
                if id(node) not in allowed:
                    return True
            elif id(node) not in rebinding:
                return True
    return False
