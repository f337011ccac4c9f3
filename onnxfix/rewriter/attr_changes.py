"""Which attribute names a file changes, and how: the question "is `self.<attr>` a constant of the
model" asked of the whole file, not of one class (a subclass's forward, an owner module writing into
a submodule's dict, an alias, `setattr` and `nn.init.*_` all change an attribute its class never
touches). Keyed by the attribute's name alone: conservative where two classes share a name."""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk

REBOUND = "rebound outside __init__"  # `<x>.attr = `, `<x>.attr.data = `, setattr, del, register_buffer
CHANGED = "changed in place outside __init__"  # an item stored, `add_`, `nn.init.zeros_(x.attr)`
CHANGED_IN_INIT = "changed in place in __init__"  # `self.strides.append(-4)` after the literal
ALIASED = "aliased"  # `s = self.strides`: what is done to `s` is not followed

# list, dict and set methods that change the container in place (the one list the rules share)
CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "update", "pop", "popitem", "clear", "setdefault",
                                "remove", "sort", "reverse", "__setitem__", "__delitem__", "add", "discard"})


def attribute_changes(tree: ast.Module) -> dict[str, set[str]]:
    """attr -> the kinds of change some function of the file makes to `<x>.<attr>`."""
    changes: dict[str, set[str]] = {}
    for function in (n for n in walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        in_init = function.name == "__init__"
        for node in walk(function):
            for attr, kind in _changes(node, in_init):
                changes.setdefault(attr, set()).add(kind)
    return changes


def _changes(node: ast.AST, in_init: bool):
    in_place = CHANGED_IN_INIT if in_init else CHANGED
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
        if node.attr == "data" and (attr := _attr_of(node.value)):
            yield attr, REBOUND  # `self.scale.data = ...`
        elif not in_init:
            yield node.attr, REBOUND
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
        if attr := _attr_of(node.value):
            yield attr, in_place
    elif isinstance(node, ast.Call):
        yield from _call_changes(node, in_place)
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None \
            and isinstance(node.value, ast.Attribute):
        yield node.value.attr, ALIASED


def _call_changes(node: ast.Call, in_place: str):
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in ("setattr", "delattr") and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
            and isinstance(node.args[1].value, str):
        yield node.args[1].value, REBOUND
        return
    if name == "register_buffer" and in_place == CHANGED and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        yield node.args[0].value, REBOUND  # registered again outside __init__
        return
    if isinstance(func, ast.Attribute) and (name in CONTAINER_MUTATORS or _in_place_name(name)):
        if attr := _attr_of(func.value):
            yield attr, in_place  # `self.steps.add_(1)`, `self.strides.append(h)`
    if _in_place_name(name):  # `nn.init.constant_(self.scale, 1.0)`, `torch.add(..., out=...)` aside
        for argument in node.args:
            if attr := _attr_of(argument):
                yield attr, in_place


def _in_place_name(name: str) -> bool:
    return name.endswith("_") and not name.startswith("_")


def _attr_of(node: ast.AST) -> str | None:
    """`<x>.attr`, an item or `.data` of it: the attribute a change reaches."""
    while isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr == "data"):
        node = node.value
    return node.attr if isinstance(node, ast.Attribute) else None
