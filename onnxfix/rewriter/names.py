"""Resolve names to what they were imported as: ``np.sum`` -> ``numpy.sum``.

Resolution is real, not textual: ``import numpy as np``, ``from numpy import concatenate``,
``from torch import nn`` are followed, and a local variable that shadows ``np`` is not NumPy.
"""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def import_bindings(statements: list[ast.stmt], package: str | None = None) -> dict[str, str]:
    """Names bound by import statements directly in ``statements`` (and their if/try blocks)."""
    bound: dict[str, str] = {}
    for node in _flat_statements(statements):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative(node.module, node.level, package)
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return bound


def resolve_relative(module: str | None, level: int, package: str | None) -> str:
    """``from ..utils import f`` inside package ``a.b`` -> ``a.utils``; '.'-prefixed if unknown."""
    if not level:
        return module or ""
    if package is None:
        return "." * level + (module or "")
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return "." * level + (module or "")
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base)


def _flat_statements(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a block, descending into if/try/with (which do not open a scope)."""
    for node in statements:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.While)):
            for block in ("body", "orelse", "finalbody"):
                yield from _flat_statements(getattr(node, block, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                yield from _flat_statements(handler.body)
        elif hasattr(ast, "TryStar") and isinstance(node, ast.TryStar):  # pragma: no cover
            yield from _flat_statements(node.body)


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """ast.iter_child_nodes as a list, without its generator overhead (the walkers below are
    the hottest code of a scan), and without the expression-context and operator singletons
    (`ctx=Load()`, `op=Add()`): no analysis visits them, and they are a third of all nodes."""
    fields = _CHILD_FIELDS.get(node.__class__)
    if fields is None:
        fields = _CHILD_FIELDS[node.__class__] = tuple(f for f in node._fields if f not in _LEAF_FIELDS)
    children = []
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            children.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


# Fields that never hold a node worth visiting: names and flags (str, int, bool), the
# expression context and the operator singletons.
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "name", "arg", "asname", "module", "level", "kind",
    "type_comment", "conversion", "is_async", "simple", "tag",
})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def walk_scope(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """(node, parent) pairs inside one scope: nested functions, lambdas and classes are
    yielded but not entered."""
    stack: list[tuple[ast.AST, ast.AST | None]] = [(child, node) for child in reversed(child_nodes(node))]
    while stack:
        current, parent = stack.pop()
        yield current, parent
        if isinstance(current, SCOPE_NODES):
            continue
        children = child_nodes(current)
        children.reverse()
        stack.extend([(child, current) for child in children])


def bound_names(scope: ast.AST) -> set[str]:
    """Names a function (or module) binds locally, other than by import."""
    return _scan_scope(scope)[0]


def _scan_scope(scope: ast.AST) -> tuple[set[str], list[ast.stmt], dict[str, ast.AST], dict[str, list[ast.AST]]]:
    """(names bound other than by import, import statements, functions defined here by name,
    values assigned to each name): one walk for all four."""
    names: set[str] = set()
    declared_global: set[str] = set()
    imports: list[ast.stmt] = []
    functions: dict[str, ast.AST] = {}
    assigned: dict[str, list[ast.AST]] = {}
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                names.add(arg.arg)
    walked = getattr(scope, "_onnxfix_scope_nodes", None)  # left by the body walk (function_body.py)
    if walked is not None:
        del scope._onnxfix_scope_nodes  # used once: the Scope built from it is cached
    for node, _ in walked if walked is not None else walk_scope(scope):
        kind = type(node)
        if kind in ASSIGNING:
            _record_assignment(node, assigned)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:
                names.add(node.id)
        elif kind in (ast.Import, ast.ImportFrom):
            imports.append(node)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            names.add(node.name)
            if kind is not ast.ClassDef:
                functions[node.name] = node
        elif kind in (ast.Global, ast.Nonlocal):
            declared_global.update(node.names)
        elif kind in (ast.ExceptHandler, ast.MatchAs) and node.name:
            names.add(node.name)
    return names - declared_global, imports, functions, assigned


ASSIGNING = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.NamedExpr})


def _record_assignment(node: ast.AST, assigned: dict[str, list[ast.AST]]) -> None:
    """The value a statement binds to each name: the assigned expression for `n = v` and
    `n: T = v`; the whole statement for unpacking (`a, b = v`), `for`, `with`, `+=`, `:=`
    (the reader decides what the element is)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(target, (ast.Tuple, ast.List)):
                for element in walk(target):
                    if isinstance(element, ast.Name):
                        assigned.setdefault(element.id, []).append(node)
        return
    if isinstance(node, ast.AnnAssign):
        if isinstance(node.target, ast.Name) and node.value:
            assigned.setdefault(node.target.id, []).append(node.value)
        return
    if isinstance(node, ast.With):
        targets = [item.optional_vars for item in node.items if item.optional_vars]
    else:  # AugAssign, For, AsyncFor, NamedExpr
        targets = [node.target]
    for target in targets:
        for element in walk(target):
            # `y[i] += 1` stores into y's elements, it does not rebind y
            if isinstance(element, ast.Name) and isinstance(element.ctx, ast.Store):
                assigned.setdefault(element.id, []).append(node)


def dotted_parts(node: ast.AST) -> list[str] | None:
    """``a.b.c`` -> ['a', 'b', 'c']; None for anything but a Name/Attribute chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


@dataclass
class Scope:
    """One level of name binding: what it imports and what else it binds."""

    imports: dict[str, str]
    others: set[str]
    parent: "Scope | None" = None
    functions: dict[str, ast.AST] = field(default_factory=dict)  # defined in this scope, by name
    assignments: dict[str, list[ast.AST]] = field(default_factory=dict)  # what each name is bound to

    def lookup(self, name: str) -> str | None:
        """The imported qualified name ``name`` stands for here, or None if it is something
        else (a local variable, a parameter, a function) or unbound."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.others:
                return None
            if name in scope.imports:
                return scope.imports[name]
            scope = scope.parent
        return None

    def is_local(self, name: str) -> bool:
        return name in self.others or name in self.imports

    def qualname(self, node: ast.AST) -> str | None:
        parts = dotted_parts(node)
        if not parts:
            return None
        base = self.lookup(parts[0])
        if base is None:
            return None
        return ".".join([base, *parts[1:]])


def module_scope(tree: ast.Module, package: str | None = None) -> Scope:
    imports = import_bindings(tree.body, package)
    others = bound_names(tree) - set(imports)
    # A module-level name rebound by an assignment is no longer the import.
    for node in _flat_statements(tree.body):
        for target in _assigned_names(node):
            imports.pop(target, None)
            others.add(target)
    return Scope(imports=imports, others=others)


def _assigned_names(node: ast.stmt) -> Iterator[str]:
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for sub in walk(target):
                if isinstance(sub, ast.Name):
                    yield sub.id
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name


def function_scope(fn: ast.AST, parent: Scope) -> Scope:
    """The function's own scope, built once per (function node, enclosing scope): a helper
    module's functions are reached from many files' forwards in one process."""
    cached = getattr(fn, "_onnxfix_scope", None)
    if cached is not None and cached[0] is parent:
        return cached[1]
    names, import_statements, functions, assigned = _scan_scope(fn)
    imports = import_bindings(import_statements)
    scope = Scope(imports=imports, others=names - set(imports), parent=parent, functions=functions,
                  assignments=assigned)
    fn._onnxfix_scope = (parent, scope)
    return scope


def module_level_read(node: ast.AST, ctx: "FunctionContext") -> str | None:
    """The name, when `node` reads a module-level binding: a name neither the function nor an
    enclosing function binds (parameters, imports, `nonlocal`)."""
    if not isinstance(node, ast.Name) or ctx.inner_scope(node) is not None:
        return None
    scope = ctx.scope
    while scope.parent is not None:  # the function's scope, then each enclosing function's
        if scope.is_local(node.id):
            return None
        scope = scope.parent
    return node.id
