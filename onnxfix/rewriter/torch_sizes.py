"""Which expressions hold a torch.Size (a tuple of sizes, not a tensor): ``x.shape``,
``x.size()``, a slice of one, a name only ever bound to one, an item of a list of them
(``featmap_sizes = [s.shape[2:] for s in scores]`` then ``for size, stride in
zip(featmap_sizes, strides)``), or a name a recorded run saw hold only torch.Size values.

The distinction matters for methods both types have: ``t.numel()`` of a tensor is an ATen call
the exporters follow, ``S.numel()`` of a torch.Size multiplies the export-time ints in Python.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.integers import is_whole_shape
from onnxfix.rewriter.size_lists import never_written
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

_DEPTH = 4  # names bound to names bound to ...: a chain this long is followed, no further


def is_torch_size(ctx: "FunctionContext", node: ast.AST, strict: bool = True, depth: int = 0) -> bool:
    """With ``strict`` False, a list of torch.Size values may also be passed to a call the
    analysis cannot follow (a method of another object), which could in principle replace its
    items; it is still never written here."""
    if is_whole_shape(node):
        return _shape_of_a_tensor(ctx, node)
    if isinstance(node, ast.Subscript) and _item_index(node.slice):  # `featmap_sizes[i]`
        return depth <= _DEPTH and _list_of_sizes(ctx, node.value, strict, depth + 1)
    if not isinstance(node, ast.Name) or depth > _DEPTH:
        return False
    observed = ctx.observed(node)
    if observed:
        return all(value.kind == "other" and value.type == "torch.Size" for value in observed)
    scope = ctx.inner_scope(node)
    if scope is not None:  # a comprehension's target: the item of what it runs over
        loops = [loop for loop in getattr(scope, "generators", ())
                 if any(isinstance(n, ast.Name) and n.id == node.id for n in walk(loop.target))]
        return len(loops) == 1 and _binds_an_item(ctx, loops[0].target, loops[0].iter, node.id, strict, depth)
    if ctx.is_parameter(node.id) or ctx.declared_outer(node.id):
        return False
    values = ctx.assignments(node.id)
    return bool(values) and all(_binding_holds_size(ctx, value, node.id, strict, depth) for value in values)


def _shape_of_a_tensor(ctx: "FunctionContext", node: ast.AST) -> bool:
    """``x.shape`` / ``x.size()`` (or a slice of one) whose ``x`` may be a tensor: not the module
    itself (`self.shape`, a buffer of that name, is a tensor) nor a value known to be something else."""
    if isinstance(node, ast.Subscript):
        node = node.value
    receiver = node.value if isinstance(node, ast.Attribute) else node.func.value
    if isinstance(receiver, ast.Name) and receiver.id == ctx.self_name:
        return False
    return ctx.tensors.is_tensor(receiver) is not False


def _item_index(index: ast.AST) -> bool:
    """An index picking one item: an int literal or a name (not a slice, not a tuple)."""
    return isinstance(index, ast.Name) or isinstance(index, ast.Constant) and type(index.value) is int \
        or isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and isinstance(index.operand, ast.Constant)


def _binding_holds_size(ctx: "FunctionContext", value: ast.AST, name: str, strict: bool, depth: int) -> bool:
    if isinstance(value, (ast.For, ast.AsyncFor)):
        return _binds_an_item(ctx, value.target, value.iter, name, strict, depth)
    return isinstance(value, ast.expr) and is_torch_size(ctx, value, strict, depth + 1)


def _binds_an_item(ctx: "FunctionContext", target: ast.expr, iterable: ast.expr, name: str, strict: bool,
                   depth: int) -> bool:
    """``for name in sizes`` or ``for name, other in zip(sizes, ...)``, ``sizes`` a list of
    torch.Size values."""
    if isinstance(target, ast.Name):
        return target.id == name and _list_of_sizes(ctx, iterable, strict, depth)
    if (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" and ctx.is_builtin("enumerate")
            and len(iterable.args) == 1 and not iterable.keywords):  # `for i, size in enumerate(sizes)`
        return _binds_an_item(ctx, target.elts[1], iterable.args[0], name, strict, depth)
    if not (isinstance(target, ast.Tuple) and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "zip" and ctx.is_builtin("zip") and not iterable.keywords
            and len(iterable.args) == len(target.elts)):
        return False
    return any(isinstance(item, ast.Name) and item.id == name and _list_of_sizes(ctx, argument, strict, depth)
               for item, argument in zip(target.elts, iterable.args))


def _list_of_sizes(ctx: "FunctionContext", node: ast.AST, strict: bool, depth: int) -> bool:
    """A list or tuple literal of torch.Size values, a comprehension building one per item, or
    a name bound only to such and never written in place."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(is_whole_shape(e) and _shape_of_a_tensor(ctx, e) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return is_whole_shape(node.elt) and _shape_of_a_tensor(ctx, node.elt)
    if not isinstance(node, ast.Name) or depth > _DEPTH or ctx.is_parameter(node.id):
        return False
    if ctx.inner_scope(node) is not None:
        return False  # a comprehension or lambda of its own binds the name: not the function's list
    values = ctx.assignments(node.id)
    if not (values and all(isinstance(v, ast.expr) and _list_of_sizes(ctx, v, strict, depth + 1) for v in values)):
        return False
    return never_written(ctx, node.id) or not strict and not _written_here(ctx, node.id)


def _written_here(ctx: "FunctionContext", name: str) -> bool:
    """An item store or delete, an augmented assignment or a list method changing ``name`` in
    this function."""
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and _named(node.value, name):
            return True
        if isinstance(node, ast.AugAssign) and _named(node.target, name):
            return True
        if isinstance(node, ast.Attribute) and node.attr in CONTAINER_MUTATORS and _named(node.value, name):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and _named(node.value, name):
            return True  # an alias, which could be written instead
    return False


def _named(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
