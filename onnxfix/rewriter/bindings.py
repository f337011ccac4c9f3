"""The expression a local name stands for, where reading it again gives the same value: ONX402's
`math.ceil(n_frames)` after `n_frames = (length - k) / stride + 1`, ONX203's `int(f)` after
`f = self.new_sr * length / self.old_sr`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.none_defaults import rebound_elsewhere
from onnxfix.rewriter.statements import block_of, enclosing_statement, single_name_assignment
from onnxfix.rewriter.tree_walk import stored_names, walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def only_value(name: str, ctx: "FunctionContext") -> ast.expr | None:
    """The value of `name = <value>`, the name's only binding in the function, for a local that is
    no parameter (the scan records any other binding, a loop target, unpacking or augmented
    assignment, as its statement); None otherwise. Unlike bound_once, wherever it is read."""
    values = ctx.assignments(name)
    one = len(values) == 1 and isinstance(values[0], ast.expr) and not ctx.is_parameter(name)
    return values[0] if one else None


def bound_once(argument: ast.AST, ctx: "FunctionContext") -> ast.AST:
    """The expression a local name is bound to, when reading that expression where the name is
    read gives the same value: the name and every name the expression reads bound once (the
    latter by plain assignment or unpacking, or parameters never assigned), both the binding and
    the read in the function's own straight-line code (no loop, comprehension or lambda around
    either), and no in-place method call or attribute store between them. Else the argument."""
    if not isinstance(argument, ast.Name) or ctx.is_parameter(argument.id):
        return argument
    values = ctx.assignments(argument.id)
    if len(values) != 1:
        return argument
    value = _unpacked_item(values[0], argument.id) if isinstance(values[0], ast.Assign) else values[0]
    if value is None or isinstance(value, ast.stmt):
        return argument
    for read in walk(value):
        if isinstance(read, ast.Name) and not (_never_rebound(read.id, ctx)
                                               or _not_rebound_between(read.id, value, argument, ctx)):
            return argument
        if isinstance(read, (ast.NamedExpr, ast.Lambda)) or (isinstance(read, ast.Call) and not _size_call(read)):
            return argument
    if not (_straight_line(value, ctx) and _straight_line(argument, ctx)):
        return argument
    if _mutation_between(value, argument, ctx):
        return argument
    return value


def _unpacked_item(assign: ast.Assign, name: str) -> ast.expr | None:
    """The item `name` takes in `a, name, c = e0, e1, e2` (a display of as many items, no star)."""
    target, value = assign.targets[0], assign.value
    if (len(assign.targets) != 1 or not isinstance(target, (ast.Tuple, ast.List))
            or not isinstance(value, (ast.Tuple, ast.List)) or len(target.elts) != len(value.elts)
            or any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))):
        return None
    return next((v for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name) and t.id == name), None)


def _not_rebound_between(name: str, value: ast.AST, argument: ast.AST, ctx: "FunctionContext") -> bool:
    """No statement binding ``name`` runs between the binding's value and the read (both in
    straight-line code, checked by the caller): TensorRT's block reads `h` of `h = q.shape[2]`
    in `q = F.avg_pool2d(q, [h, 1])`, whose own rebinding of `q` comes after the call."""
    if ctx.declared_outer(name) or any(isinstance(n, ast.NamedExpr) for n in walk(ctx.fn.node)):
        return False
    start, end = (value.end_lineno, value.end_col_offset), (argument.lineno, argument.col_offset)
    for node in walk(ctx.fn.node):
        if _binds_otherwise(node, name):
            return False  # `except E as name`, an import, a def or class, a match capture
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            statement = enclosing_statement(node, ctx)
            if statement is None or isinstance(statement, _LOOPS):
                return False  # a loop's target: the loop may run between
            if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and statement.value is not None \
                    and any(n is argument for n in walk(statement.value)):
                continue  # `q = F.avg_pool2d(q, [h, 1])`: bound after the read
            # runs (at least in part) after the value and before the read: the value's own statement
            # (`n, h = (h - 3) / 2 + 1, w`), a `with ... as name:` around the read
            if (statement.end_lineno, statement.end_col_offset) > start and (statement.lineno, statement.col_offset) < end:
                return False
    return True


def _binds_otherwise(node: ast.AST, name: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name).split(".")[0] == name for alias in node.names)
    return isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name or (
        isinstance(node, ast.MatchMapping) and node.rest == name)


def _straight_line(node: ast.AST, ctx: "FunctionContext") -> bool:
    """No loop, comprehension, lambda or nested function between ``node`` and the function."""
    for ancestor in ctx.enclosing(node):
        if ancestor is ctx.fn.node:
            return True
        if isinstance(ancestor, (*_SCOPES, *_LOOPS)):
            return False
    return False  # not found in the function: nothing is known


def _mutation_between(first: ast.AST, last: ast.AST, ctx: "FunctionContext") -> bool:
    """An in-place method call (`x.t_()`) or an attribute store (`self.k = ...`) in the source
    between two nodes of the function."""
    start, end = (first.end_lineno, first.end_col_offset), (last.lineno, last.col_offset)
    for node in walk(ctx.fn.node):
        if not hasattr(node, "lineno") or not start <= (node.lineno, node.col_offset) <= end:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
                and not node.func.attr.endswith("__"):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            return True
    return False


def _never_rebound(name: str, ctx: "FunctionContext") -> bool:
    """A parameter never assigned, or a local assigned once by ``name = expression`` or by
    unpacking (``b, t, c = x.shape``), not by a loop or a ``with``."""
    values = ctx.assignments(name)
    # every binding counts, not only the assignments the scope records: `with ... as name`,
    # `except ... as name`, imports, defs, `del`
    stores = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name
              and isinstance(n.ctx, (ast.Store, ast.Del))]
    if any(_binds_otherwise(n, name) for n in walk(ctx.fn.node)):
        return False
    if ctx.is_parameter(name):
        return not values and not stores
    return len(values) == 1 and isinstance(values[0], (ast.expr, ast.Assign)) and len(stores) == 1


def _size_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == "size"


def reaching_value(read: ast.Name, ctx: "FunctionContext") -> ast.expr | None:
    """The value a read of a local name sees where straight-line code decides it: the nearest
    `name = value` before the read's statement, in its block or an enclosing one, with no other
    binding of the name in between (nested blocks included) and no loop around the read binding
    the name (a later binding would reach it on the next turn). ABINet's `out = (a == b)`, then
    `out = ((out.cumsum(dim) == 1) & out)...` rebinds `out`: the cumsum reads the comparison.
    None where it is not decided so (a parameter, a branch, a loop, a nested scope's name)."""
    value = _reaching(read, ctx)
    return None if value is _ENTRY else value


def reaching_branch_values(read: ast.Name, ctx: "FunctionContext") -> list[ast.expr] | None:
    """Where the nearest binding before the read is an `if` that rebinds the name on each of its
    paths (kornia's `if isinstance(sigma, tuple): sigma = torch.tensor(...)` / `else: sigma =
    sigma.to(...)`): the value each path leaves, by the rules of reaching_value; else None."""
    value = _reaching(read, ctx, branches=True)
    return value if isinstance(value, list) else None


def parameter_reaches(read: ast.Name, ctx: "FunctionContext") -> bool:
    """A read of a parameter that sees the value the call passed: no binding of the name before
    it in straight-line code, none in a loop around it, none in the header of a statement around
    it. ESPnet's `make_pad_mask` reads its `lengths` argument in `if not isinstance(lengths, list):
    lengths = lengths.tolist()`: the tensor passed in, though the name is a list afterwards."""
    return ctx.is_parameter(read.id) and _reaching(read, ctx) is _ENTRY and not any(
        _header_binds(a, read.id) for a in _ancestors_in_function(read, ctx))


_ENTRY = object()  # what `_reaching` returns where no binding precedes the read: the function's entry


def _reaching(read: ast.Name, ctx: "FunctionContext", branches: bool = False):
    name = read.id
    if not isinstance(read.ctx, ast.Load) or ctx.inner_scope(read) is not None or rebound_elsewhere(ctx.fn.node, name):
        return None
    ancestors = list(_ancestors_in_function(read, ctx))
    if any(isinstance(a, _LOOPS) and _binds(a, name) or _try_body_reaches(a, name, ancestors) for a in ancestors):
        return None
    current = enclosing_statement(read, ctx)
    while current is not None and current is not ctx.fn.node:
        block = block_of(current, ctx)
        if not block:
            return None
        for previous in reversed(block[:block.index(current)]):
            if _binds(previous, name):
                if branches and isinstance(previous, ast.If):
                    return _left_by_branches(previous, name)
                return previous.value if isinstance(previous, ast.Assign) and single_name_assignment(previous) == name \
                    else None
        current = enclosing_statement(ctx.parent(current), ctx)
    return _ENTRY if current is ctx.fn.node else None


def _left_by_branches(statement: ast.If, name: str) -> list[ast.expr] | None:
    """The value of ``name`` each path through the `if` leaves: the last statement binding it in
    each branch (an `elif` read the same way), a plain `name = value`; None where a path keeps the
    earlier value or binds it otherwise."""
    values = []
    for branch in (statement.body, statement.orelse):
        if len(branch) == 1 and isinstance(branch[0], ast.If) and branch is statement.orelse:
            inner = _left_by_branches(branch[0], name)  # elif
            if inner is None:
                return None
            values.extend(inner)
            continue
        last = next((s for s in reversed(branch) if _binds(s, name)), None)
        if not (isinstance(last, ast.Assign) and single_name_assignment(last) == name):
            return None
        values.append(last.value)
    return values


def _try_body_reaches(statement: ast.AST, name: str, ancestors: list) -> bool:
    """A read in a `try`'s handler, `else` or `finally` that a binding in its body may reach."""
    if not isinstance(statement, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        return False
    in_body = any(part is ancestor for part in statement.body for ancestor in ancestors)
    return not in_body and any(_binds(part, name) for part in statement.body)


def _header_binds(statement: ast.AST, name: str) -> bool:
    """``statement`` binds ``name`` before its body runs: `with ... as name`, `except E as name`,
    a walrus in an `if` / `while` test."""
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return any(item.optional_vars is not None and name in stored_names(item.optional_vars) for item in statement.items)
    if isinstance(statement, ast.ExceptHandler):
        return statement.name == name
    if isinstance(statement, (ast.If, ast.While)):
        return name in stored_names(statement.test)
    return False


def _ancestors_in_function(node: ast.AST, ctx: "FunctionContext"):
    for ancestor in ctx.ancestors(node):
        if ancestor is ctx.fn.node:
            return
        yield ancestor


def _binds(statement: ast.AST, name: str) -> bool:
    return name in stored_names(statement)
