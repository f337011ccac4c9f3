"""Lists of per-level sizes: ``spatial_shapes.append([h, w])`` for each feature map, then
``for lvl, (h, w) in enumerate(spatial_shapes)`` in another method (RT-DETR's anchors,
Deformable DETR's levels, YOLO's grids). The loop's ``h`` and ``w`` are sizes, as traced as the
``feat.shape`` they came from; the size rules see them through ``FunctionContext.shape_element``.

A list counts when every way it gets its items is known: bound to ``[]`` (or ``list()``), to a
literal of size sequences or to a list comprehension building one per item, grown only by
``.append`` of size sequences, passed as a parameter whose every call site passes such a list, or
unpacked from ``self.method(...)`` whose every ``return`` holds such a list at that position.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.integers import held_assuming_cycles, is_whole_shape, unpacked_element
from onnxfix.rewriter.returned import callee_context, returned_items, target_position
from onnxfix.rewriter.tree_walk import walk

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
    # a list defined through itself: assumed while answered (the ledger drops what rested on it)
    return held_assuming_cycles(ctx.file.cycles, ctx.cache, ("size_list", node.id),
                                lambda: _name_is_size_list(ctx, node.id))


def is_size_sequence(ctx: "FunctionContext", node: ast.AST) -> bool:
    """``[h, w]``, ``(h, w)`` of sizes that are non-negative ints (not ``h / 2``, ``w - 10``),
    ``feat.shape[-2:]``, or a name bound once to one."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(ctx.sizes.is_size(e) and ctx.ints.is_nonnegative_int(e) for e in node.elts)
    if is_whole_shape(node):
        return True
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return len(values) == 1 and isinstance(values[0], ast.expr) and is_size_sequence(ctx, values[0])
    return False


def _name_is_size_list(ctx: "FunctionContext", name: str) -> bool:
    values = ctx.assignments(name)
    if not (_grown_by_size_sequences(ctx, name) and only_read(ctx, name)):
        return False
    if ctx.is_parameter(name):
        return not values and ctx.across_calls("size list", name, lambda caller, argument: is_size_list(caller, argument))
    return bool(values) and all(_bound_to_size_list(ctx, name, v) for v in values)


def only_read(ctx: "FunctionContext", name: str, depth: int = 0) -> bool:
    """Every read of the list leaves it as it is: `.append` on it (judged by the caller), a loop
    over it (also through enumerate / reversed), `len()`, an index, a `return`, or an argument of a
    function of this file whose parameter is only read in the same way (`self._anchors(sizes)`).
    An alias (`a = sizes`) or a call elsewhere could add other items: no."""
    for node, parent in _loads(ctx, name):
        if isinstance(parent, ast.Attribute) and parent.attr == "append":
            continue
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node or isinstance(parent, ast.Subscript):
            continue
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and node in parent.args:
            if parent.func.id in ("len", "enumerate", "reversed") and ctx.is_builtin(parent.func.id):
                continue
        if isinstance(parent, (ast.Return, ast.Tuple)) and _returned(parent, ctx):
            continue
        if isinstance(parent, ast.Call) and node in parent.args and depth < 3 and _read_by_callee(ctx, parent, node, depth):
            continue
        return False
    return True


def _loads(ctx: "FunctionContext", name: str):
    for node, parent in walk_function_body(ctx.fn.node):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            yield node, ctx.parent(node) or parent


def _returned(node: ast.AST, ctx: "FunctionContext") -> bool:
    return isinstance(node, ast.Return) or isinstance(ctx.parent(node), ast.Return)


def _read_by_callee(ctx: "FunctionContext", call: ast.Call, argument: ast.expr, depth: int) -> bool:
    """The argument goes to a method of this class (`self.m(...)`) or a module function, certain
    in the file (returned.callee_context), whose parameter in that position only reads it."""
    callee = callee_context(ctx, call)
    if callee is None:
        return False
    node = callee.fn.node
    skip = 1 if callee.self_name is not None and isinstance(call.func, ast.Attribute) else 0
    positional = [a.arg for a in [*node.args.posonlyargs, *node.args.args]][skip:]
    index = call.args.index(argument)
    if index >= len(positional) or any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
        return False
    parameter = positional[index]
    return _grown_by_size_sequences(callee, parameter) and only_read(callee, parameter, depth + 1)


def _bound_to_size_list(ctx: "FunctionContext", name: str, value: ast.AST) -> bool:
    if isinstance(value, ast.Assign):
        element = unpacked_element(value, name)  # flat, sizes = [], []
        if element is not None:
            return _bound_to_size_list(ctx, name, element)
        return _returned_size_list(ctx, value, name)  # a, sizes, b = self.encoder_input(feats)
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(is_size_sequence(ctx, e) for e in value.elts)
    if isinstance(value, ast.ListComp):  # Mask2Former: `[(e.shape[2], e.shape[3]) for e in embeds]`
        return _reads_targets_as_tensors_only(value) and is_size_sequence(ctx, value.elt)
    return _empty_list_call(ctx, value)


def _reads_targets_as_tensors_only(comprehension: ast.ListComp) -> bool:
    """The element reads the comprehension's own variables only as `v.shape` / `v.size(...)`:
    the size oracles resolve a name through the function's bindings, not the comprehension's
    (`[hw for hw in pairs]` beside `hw = x.shape[2:]` would read the function's `hw`)."""
    targets = {n.id for g in comprehension.generators for n in walk(g.target) if isinstance(n, ast.Name)}
    attribute_receivers = {id(n.value) for n in walk(comprehension.elt)
                           if isinstance(n, ast.Attribute) and n.attr in ("shape", "size")}
    return all(id(n) in attribute_receivers for n in walk(comprehension.elt)
               if isinstance(n, ast.Name) and n.id in targets)


def _empty_list_call(ctx: "FunctionContext", value: ast.AST) -> bool:
    """`list()`: an empty list, like `[]` (FaceBoxes' `detection_dimension = list()`)."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"
            and ctx.is_builtin("list") and not value.args and not value.keywords)


def converted_size_list(ctx: "FunctionContext", name: str, builder: ast.Call) -> bool:
    """``name`` is a local list of size sequences (``sizes = []``, then
    ``sizes.append(feat.shape[2:])`` per level) that ``builder`` (``torch.tensor(sizes)``)
    converts, and nothing else reads: FaceBoxes' ``detection_dimension``. The name may be rebound
    to the converted tensor by the builder's own statement, at the function's top level; its reads
    after that statement read the tensor."""
    if ctx.is_parameter(name) or not _grown_by_size_sequences(ctx, name):
        return False
    statement = ctx.parent(builder)
    rebound = (isinstance(statement, ast.Assign) and statement.value is builder and len(statement.targets) == 1
               and _is_name(statement.targets[0], name) and statement in ctx.fn.node.body)
    values = [v for v in ctx.assignments(name) if not (rebound and v is builder)]
    if not values or not all(_bound_to_size_list(ctx, name, v) for v in values):
        return False
    for node, parent in _loads(ctx, name):
        if (isinstance(parent, ast.Attribute) and parent.attr == "append") or node is builder.args[0]:
            continue
        if rebound and (node.lineno, node.col_offset) > (statement.end_lineno, statement.end_col_offset):
            continue  # the tensor, read after its statement at the top level
        return False
    return True


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
    """``a, sizes, b = self.method(...)``: every return of the function called holds a size list
    there (returned.returned_items)."""
    unpacked = target_position(assign, name)
    items = returned_items(ctx, assign.value, unpacked) if unpacked is not None else None
    return bool(items) and all(is_size_list(callee, item) for callee, item in items)


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



def sequence_of_sizes(ctx: "FunctionContext", value: ast.AST) -> bool:
    """A sequence whose items are sizes (ints >= 0): a torch.Size, ``list(S)`` / ``tuple(S)`` of
    one, or a comprehension over one whose item is a non-negative int (a U-Net's size pyramid,
    ``size = [math.ceil(w / 2) for w in size]``)."""
    if is_whole_shape(value):
        return True
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple")
            and ctx.is_builtin(value.func.id) and len(value.args) == 1 and not value.keywords):
        inner = value.args[0]
        return _mapped_sizes(ctx, inner) if isinstance(inner, ast.GeneratorExp) else ctx.is_shape_sequence(inner)
    return isinstance(value, ast.ListComp) and _mapped_sizes(ctx, value)


def _mapped_sizes(ctx: "FunctionContext", comprehension: ast.ListComp | ast.GeneratorExp) -> bool:
    if len(comprehension.generators) != 1:
        return False
    loop = comprehension.generators[0]
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
        return False
    return ctx.is_shape_sequence(loop.iter) and ctx.ints.is_nonnegative_int(comprehension.elt)


def never_written(ctx: "FunctionContext", name: str) -> bool:
    """The list ``name`` keeps the items it is bound to: in the whole function (training-only
    branches and nested functions too) no item of it is assigned or deleted and no augmented
    assignment or list method changes it, and every read leaves it as it is (a loop over it, an
    index, unpacking, a comparison, a builtin's argument (`len`, `isinstance`, `tuple`, ...: none
    writes one but setattr and the like), an argument of a torch function, a `return`, or a store
    into a container right before the name is rebound:
    U^2-Net's `sizes[h] = size` / `size = [...]`). An alias or another call could write it: no."""
    function = ctx.fn.node
    parents = {child: node for node in walk(function) for child in ast.iter_child_nodes(node)}
    for node in walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and _is_name(node.value, name):
            return False
        if isinstance(node, ast.AugAssign) and _is_name(node.target, name):
            return False
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and node is not function
                and any(_is_name(n, name) for n in walk(node))):
            return False
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and not _leaves_it(
                ctx, node, parents):
            return False
    return True


# builtins that can change an argument (every other builtin only reads it: len, isinstance, tuple, ...)
_WRITING_BUILTINS = frozenset({"setattr", "delattr", "exec", "eval", "vars", "globals", "locals", "__import__"})


def _leaves_it(ctx: "FunctionContext", node: ast.Name, parents: dict) -> bool:
    parent = parents.get(node)
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load) or isinstance(parent, ast.Return):
        return True
    if isinstance(parent, (ast.Compare, ast.FormattedValue)) or (
            isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.BoolOp)) and getattr(parent, "test", None) is node):
        return True
    if isinstance(parent, ast.Assign) and parent.value is node and all(
            isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
        return True  # `h, w = size`: its items, unpacked
    if isinstance(parent, ast.Starred):
        parent = parents.get(parent)
    if isinstance(parent, ast.keyword):
        parent = parents.get(parent)
    if isinstance(parent, ast.Call) and node is not parent.func:
        if isinstance(parent.func, ast.Name) and parent.func.id not in _WRITING_BUILTINS and ctx.is_builtin(parent.func.id):
            return True
        if isinstance(parent.func, ast.Attribute) and ctx.tensors.is_tensor(parent.func.value):
            return True  # `x.reshape(-1, *size)`: a tensor method
        return (ctx.qualname(parent.func) or "").startswith("torch.")  # torch writes no Python list
    return isinstance(parent, ast.Assign) and _stored_then_rebound(parent, node.id, parents)


def _stored_then_rebound(assign: ast.Assign, name: str, parents: dict) -> bool:
    """`d[k] = name` whose next statement in the block rebinds ``name``: the stored list is read
    through the container from then on, never through the name."""
    if not (len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Subscript) and _is_name(assign.value, name)):
        return False
    block = parents.get(assign)
    body = next((b for b in (getattr(block, "body", None), getattr(block, "orelse", None)) if b and assign in b), None)
    if body is None or body.index(assign) + 1 >= len(body):
        return False
    following = body[body.index(assign) + 1]
    return isinstance(following, ast.Assign) and len(following.targets) == 1 and _is_name(following.targets[0], name)
