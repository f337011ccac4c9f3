"""Which names are certainly bound where: straight-line reading of a function's statements.

Code moved into a nested function (ONX601 / ONX613's branches) reads the names it also binds as
its own locals: each must be passed in, and passing one in reads it where the `if` stood, so it
must be bound there on every path. A line number says nothing about that: `carry` bound in the
`else` of an earlier loop step, `h` bound under an earlier `if`, a comprehension's `h`.
"""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def free_reads(statements: list[ast.stmt], bound: frozenset[str] = frozenset()) -> set[str]:
    """Names the statements may read before they bind them (on some path), given ``bound``."""
    free: set[str] = set()
    _run(statements, set(bound), free)
    return free


def bound_after(statements: list[ast.stmt], bound: frozenset[str] = frozenset()) -> set[str]:
    """Names bound on every path through the statements (``bound`` included)."""
    names = set(bound)
    _run(statements, names, set())
    return names


def certainly_bound(name: str, node: ast.stmt, ctx: "FunctionContext") -> bool:
    """``name`` is bound on every path that reaches ``node``: a parameter, or bound by the
    statements before ``node`` in its block and in each enclosing block (a loop's target and a
    `with`'s names inside their body), read straight-line."""
    if ctx.is_parameter(name):
        return True
    current = node
    while current is not ctx.fn.node:
        parent = ctx.parent(current)
        if parent is None:
            return False
        if isinstance(parent, (ast.For, ast.AsyncFor)) and _in(current, parent.body) and name in _targets(parent.target):
            return True
        if isinstance(parent, (ast.With, ast.AsyncWith)) and name in {
                n for item in parent.items if item.optional_vars is not None for n in _targets(item.optional_vars)}:
            return True
        block = _block(current, parent)
        if block is not None and name in bound_after(block[:_index(current, block)]):
            return True
        current = parent
    return False


def _run(statements: list[ast.stmt], bound: set[str], free: set[str]) -> None:
    for statement in statements:
        _statement(statement, bound, free)


def _statement(node: ast.stmt, bound: set[str], free: set[str]) -> None:
    if isinstance(node, ast.If):
        _reads(node.test, bound, free)
        then, other = set(bound), set(bound)
        _run(node.body, then, free)
        _run(node.orelse, other, free)
        bound |= then & other
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        _reads(node.iter, bound, free)
        inside = bound | _targets(node.target)
        _run(node.body, inside, free)
        _run(node.orelse, set(bound), free)  # the loop may run no step: nothing it binds is certain
    elif isinstance(node, ast.While):
        _reads(node.test, bound, free)
        _run(node.body, set(bound), free)
        _run(node.orelse, set(bound), free)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            _reads(item.context_expr, bound, free)
            if item.optional_vars is not None:
                bound |= _targets(item.optional_vars)
        _run(node.body, bound, free)
    elif isinstance(node, ast.Try):
        _run(node.body, set(bound), free)
        for handler in node.handlers:
            _run(handler.body, set(bound), free)
        _run(node.orelse, set(bound), free)
        _run(node.finalbody, set(bound), free)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        for decorator in node.decorator_list:
            _reads(decorator, bound, free)
        bound.add(node.name)
    elif isinstance(node, ast.Delete):  # `del h`: no longer bound
        for target in node.targets:
            if not isinstance(target, ast.Name):
                _reads(target, bound, free)  # `del x[i]` reads x and i
            bound -= _targets(target)
    elif isinstance(node, ast.AugAssign):
        _reads(node.value, bound, free)
        _reads(node.target, bound, free)
        if isinstance(node.target, ast.Name) and node.target.id not in bound:
            free.add(node.target.id)
        bound |= _targets(node.target)
    else:  # assignments and expressions: the value is read before the targets are bound
        values = [node.value] if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None else []
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for part in values or ([] if targets else [node]):
            _reads(part, bound, free)
        for target in targets:
            _reads(target, bound, free)  # `a[i] = v` reads a and i
            bound |= _targets(target)


def _reads(node: ast.AST, bound: set[str], free: set[str]) -> None:
    """Names ``node`` loads that are not bound; a lambda's or a comprehension's own variables are
    its own (a walrus binds in the function: counted as a binding)."""
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id not in bound:
            free.add(node.id)
        return
    if isinstance(node, ast.NamedExpr):
        _reads(node.value, bound, free)
        bound |= _targets(node.target)
        return
    if isinstance(node, _SCOPES):
        own = _own_names(node)
        free |= {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                 and n.id not in bound and n.id not in own}
        return
    for child in ast.iter_child_nodes(node):
        _reads(child, bound, free)


def _own_names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Lambda):
        return {a.arg for a in walk(node.args) if isinstance(a, ast.arg)}
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return {n for g in node.generators for n in _targets(g.target)}
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
        a.arg for a in walk(node) if isinstance(a, ast.arg)}


def _targets(target: ast.AST) -> set[str]:
    """Names a target binds (`a, (b, *c) = ...`; not `a.x` or `a[i]`)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _targets(e)}
    if isinstance(target, ast.Starred):
        return _targets(target.value)
    return set()


def _in(node: ast.AST, block: list[ast.stmt]) -> bool:
    return any(node is s for s in block)


def _index(node: ast.AST, block: list[ast.stmt]) -> int:
    return next(i for i, s in enumerate(block) if s is node)


def _block(node: ast.AST, parent: ast.AST) -> list[ast.stmt] | None:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and _in(node, block):
            return block
    if isinstance(parent, ast.ExceptHandler) and _in(node, parent.body):
        return parent.body
    return None
