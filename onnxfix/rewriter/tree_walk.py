"""`walk`: ast.walk's nodes in ast.walk's order, a module's, class's or function's found once.

The rules and the analyses ask the same whole-tree questions of the same functions and modules
many times (every read of a name, every call, every attribute): walked afresh each time, the
walks were half of the static path's time on the real-world corpus. The trees are never
edited in place (a fix is a text edit, then a new parse), so a tree's nodes stay what they
were; a NodeTransformer only ever runs on a deep copy of an expression, which is another tree.
A tree's nodes are kept on its root (names.py keeps a scope's the same way), so they live and die
with it: a weak-keyed table would keep every tree alive, its root being among its own nodes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

_WHOLE = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_NODES = "_onnxfix_walk"


def walk(node: ast.AST) -> Iterable[ast.AST]:
    """ast.walk(node); for a module, class or function, a tuple kept for the next walk of it
    (an expression or a statement is walked lazily: a caller that stops early stops the walk)."""
    if not isinstance(node, _WHOLE):
        return ast.walk(node)
    found = node.__dict__.get(_NODES)
    if found is None:
        found = tuple(ast.walk(node))
        setattr(node, _NODES, found)
    return found


_STORES = "_onnxfix_stores"


def stored_names(node: ast.AST) -> frozenset[str]:
    """The names a `Name` binds or deletes anywhere in ``node`` (nested scopes included), kept on
    the node: asked of every statement before every read of a name, walks of them were quadratic
    in a long function."""
    found = node.__dict__.get(_STORES)
    if found is None:
        found = frozenset(n.id for n in ast.walk(node)
                          if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)))
        setattr(node, _STORES, found)
    return found
