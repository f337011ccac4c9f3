"""`if mask is None: mask = <value>` at the top of a function: past that statement the name is
never None, whatever the run saw it hold before (a recorded run notes every value a local held,
the None passed by one caller included)."""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk
import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext
    from onnxfix.rewriter.evidence import Value


def without_defaulted_none(node: ast.Name, values: frozenset["Value"], ctx: "FunctionContext") -> frozenset["Value"]:
    """The values a run saw ``node``'s name hold, less None where a default rebinds it before
    ``node`` (Funnel's `relative_pos`, called once without `pooled_pos`), unless the default
    itself may be None (a name the run saw None in)."""
    if not any(v.kind == "none" for v in values):
        return values
    default = defaulted_before(node, ctx)
    if default is None or not _never_none(default, node, ctx):
        return values
    return frozenset(v for v in values if v.kind != "none")


def _never_none(default: ast.expr, node: ast.Name, ctx: "FunctionContext") -> bool:
    """A default known not to be None: a name the run never saw None in, a tensor, a number or
    string literal, a container display. An attribute, a call or a subscript may be None
    (`self.default_pos`, `kwargs.get(...)`) unless known to be a tensor."""
    if isinstance(default, ast.Name):
        seen = ctx.observed(default)
        return default.id != node.id and bool(seen) and not any(v.kind == "none" for v in seen)
    if isinstance(default, ast.Constant):
        return default.value is not None
    if isinstance(default, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return bool(ctx.tensors.is_tensor(default))


def defaulted_before(node: ast.Name, ctx: "FunctionContext") -> ast.expr | None:
    """The value a top-level `if <name> is None: <name> = <value>` of ``node``'s function binds,
    when that statement runs before the one holding ``node`` and nothing else in the function
    rebinds the name; None otherwise."""
    body = getattr(ctx.fn.node, "body", [])
    holder = next((s for s in body if s.lineno <= node.lineno <= (s.end_lineno or s.lineno)), None)
    if holder is None:
        return None
    if rebound_elsewhere(ctx.fn.node, node.id):
        return None
    for statement in body:
        if statement is holder:
            return None
        value = _default_of(statement, node.id)
        if value is not None and len(ctx.assignments(node.id)) == 1:
            return value
    return None


def rebound_elsewhere(function: ast.AST, name: str) -> bool:
    """Bindings `ctx.assignments` does not count: a nested def's `nonlocal name`, a `match`
    capture, `del name`, a `global` declaration."""
    return name in _other_bindings(function)


@functools.lru_cache(maxsize=256)
def _other_bindings(function: ast.AST) -> frozenset[str]:
    """The names `rebound_elsewhere` finds in ``function``, from one walk of it (asked for every
    name read, a walk per read was quadratic in the function's size)."""
    names: set[str] = set()
    for node in walk(function):
        if isinstance(node, (ast.Nonlocal, ast.Global)):
            names.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None:
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
            names.add(node.id)
    return frozenset(names)


def _default_of(statement: ast.stmt, name: str) -> ast.expr | None:
    if not (isinstance(statement, ast.If) and not statement.orelse and none_test(statement.test) == name):
        return None
    for inner in statement.body:
        if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name) \
                and inner.targets[0].id == name:
            return inner.value
    return None


def is_none_literal(node: ast.AST | None) -> bool:
    """The literal `None`."""
    return isinstance(node, ast.Constant) and node.value is None


def none_test(node: ast.AST) -> str | None:
    """'mask' for `mask is None` (a plain name or `self.x`)."""
    if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Is)
            and is_none_literal(node.comparators[0]) and isinstance(node.left, (ast.Name, ast.Attribute))):
        return ast.unparse(node.left)
    return None
