"""Lists of per-level sizes: ``spatial_shapes.append([h, w])`` for each feature map, then
``for lvl, (h, w) in enumerate(spatial_shapes)`` in another method (RT-DETR's anchors,
Deformable DETR's levels, YOLO's grids). The loop's ``h`` and ``w`` are sizes, as traced as the
``feat.shape`` they came from; the size rules see them through ``FunctionContext.shape_element``.

A list counts when every way it gets its items is known: bound to ``[]`` or to a literal of size
sequences, grown only by ``.append`` of size sequences, passed as a parameter whose every call
site passes such a list, or unpacked from ``self.method(...)`` whose every ``return`` holds such
a list at that position.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.integers import is_whole_shape, unpacked_element

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

# list methods that add items other than through `.append`, or replace them
_OTHER_GROWTH = frozenset({"extend", "insert", "__setitem__", "__iadd__"})


def is_size_list(ctx: "FunctionContext", node: ast.AST) -> bool:
    """A list (or tuple) whose items are all sequences of sizes."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(is_size_sequence(ctx, e) for e in node.elts)
    if not isinstance(node, ast.Name):
        return False
    key = ("size_list", node.id)
    if key in ctx.cache:
        return ctx.cache[key]
    ctx.cache[key] = False  # a list defined through itself proves nothing
    answer = _name_is_size_list(ctx, node.id)
    ctx.cache[key] = answer
    return answer


def is_size_sequence(ctx: "FunctionContext", node: ast.AST) -> bool:
    """``[h, w]``, ``(h, w)`` of sizes, ``feat.shape[-2:]``, or a name bound once to one."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(ctx.sizes.is_size(e) for e in node.elts)
    if is_whole_shape(node):
        return True
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return len(values) == 1 and isinstance(values[0], ast.expr) and is_size_sequence(ctx, values[0])
    return False


def _name_is_size_list(ctx: "FunctionContext", name: str) -> bool:
    values = ctx.assignments(name)
    if ctx.is_parameter(name):
        if values:
            return False
        return ctx.across_calls("size list", name, lambda caller, argument: is_size_list(caller, argument))
    if not values or not all(_bound_to_size_list(ctx, name, v) for v in values):
        return False
    return _grown_by_size_sequences(ctx, name)


def _bound_to_size_list(ctx: "FunctionContext", name: str, value: ast.AST) -> bool:
    if isinstance(value, ast.Assign):
        element = unpacked_element(value, name)  # flat, sizes = [], []
        if element is not None:
            return _bound_to_size_list(ctx, name, element)
        return _returned_size_list(ctx, value, name)  # a, sizes, b = self.encoder_input(feats)
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(is_size_sequence(ctx, e) for e in value.elts)
    return False


def _grown_by_size_sequences(ctx: "FunctionContext", name: str) -> bool:
    """Every method call on the list is an ``.append`` of a size sequence (or a read)."""
    for node, _ in walk_function_body(ctx.fn.node):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return False
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and _is_name(node.value, name):
            return False
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_name(node.func.value, name)):
            continue
        method = node.func.attr
        if method == "append":
            if len(node.args) != 1 or not is_size_sequence(ctx, node.args[0]):
                return False
        elif method in _OTHER_GROWTH:
            return False
    return True


def _returned_size_list(ctx: "FunctionContext", assign: ast.Assign, name: str) -> bool:
    """``a, sizes, b = self.method(...)``: the method of this class returns a size list there."""
    call = assign.value
    if not (
        len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Tuple)
        and isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name) and call.func.value.id == ctx.self_name
        and ctx.fn.cls is not None and ctx.file.calls is not None
    ):
        return False
    targets = assign.targets[0].elts
    index = next((i for i, t in enumerate(targets) if isinstance(t, ast.Name) and t.id == name), None)
    method = ctx.fn.cls.methods.get(call.func.attr)
    callee = ctx.file.calls.contexts.get(id(method)) if method is not None else None
    if index is None or callee is None or any(isinstance(t, ast.Starred) for t in targets):
        return False
    returns = [n for n, _ in walk_function_body(method) if isinstance(n, ast.Return)]
    return bool(returns) and all(
        isinstance(r.value, ast.Tuple) and len(r.value.elts) == len(targets) and is_size_list(callee, r.value.elts[index])
        for r in returns
    )


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def unpacks_size_list(ctx: "FunctionContext", target: ast.AST, iterable: ast.AST, name: str) -> bool:
    """``for (h, w) in sizes`` / ``for lvl, (h, w) in enumerate(sizes)`` binding ``name`` to an
    item of a size sequence of a size list."""
    if (
        isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate"
        and ctx.is_builtin("enumerate") and len(iterable.args) == 1 and not iterable.keywords
        and isinstance(target, ast.Tuple) and len(target.elts) == 2
    ):
        target, iterable = target.elts[1], iterable.args[0]
    return (
        isinstance(target, (ast.Tuple, ast.List))
        and not any(isinstance(t, ast.Starred) for t in target.elts)
        and any(_is_name(t, name) for t in target.elts)
        and is_size_list(ctx, iterable)
    )
