"""What an `isinstance(v, torch.Tensor)` test around a read says about `v` there.

Library code takes a number or a tensor and tests which it got (kornia's `solarize`: `if
isinstance(additions, torch.Tensor) and len(additions.shape) != 0: ... len(additions) ...`): in
the branch the test guards the name is a tensor, in the other branch it is not, whatever its
annotation or the run's other bindings say.
"""

from __future__ import annotations

import ast
from onnxfix.rewriter.tree_walk import walk
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext

LOOPS = (ast.For, ast.AsyncFor, ast.While)
DEFERRED = (ast.Lambda, ast.GeneratorExp, ast.FunctionDef, ast.AsyncFunctionDef)


def _within_function(node: ast.AST, ctx: "FunctionContext"):
    for ancestor in ctx.ancestors(node):
        if ancestor is ctx.fn.node:
            return
        yield ancestor


def runs_later(node: ast.AST, ctx: "FunctionContext") -> bool:
    """``node`` sits in a lambda, a generator expression or a nested def of the function: it runs
    when called or iterated, maybe after bindings that come later in the source."""
    return any(isinstance(a, DEFERRED) for a in _within_function(node, ctx))


def not_a_tensor_here(node: ast.Name, ctx: "FunctionContext") -> bool:
    """``node`` is read where an isinstance test on its name ruled a tensor out: in the `else` of
    `if isinstance(v, torch.Tensor):` or the body of `if not isinstance(v, torch.Tensor):`."""
    return any(not holds for holds in _tests_around(node, ctx))


def a_tensor_here(node: ast.Name, ctx: "FunctionContext") -> bool:
    """``node`` is read where an isinstance test on its name found a tensor (the body of `if
    isinstance(v, torch.Tensor) [and ...]:`, a later operand of that `and`, or the `else` of `if
    not isinstance(...)`) and the name is not rebound between the test and the read: not read in
    a comprehension, lambda or generator (run later, or binding it), never bound by `:=`."""
    if ctx.inner_scope(node) is not None or node.id in _walrus_names(ctx):
        return False
    if runs_later(node, ctx):
        return False  # a generator or a lambda runs later, maybe after a rebinding
    return any(holds for holds in _tests_around(node, ctx, unbound_since=True))


def _walrus_names(ctx: "FunctionContext") -> frozenset[str]:
    """The names `:=` binds anywhere in the function, found once per function: asked for every
    read, a walk each time made a long expression quadratic (1,500 reads: 45 s)."""
    key = "type_tests.walrus_names"
    if key not in ctx.cache:
        ctx.cache[key] = frozenset(n.target.id for n in walk(ctx.fn.node) if isinstance(n, ast.NamedExpr))
    return ctx.cache[key]


def _tests_around(node: ast.Name, ctx: "FunctionContext", unbound_since: bool = False):
    """For each isinstance test on ``node``'s name that guards the read: whether it found a tensor."""
    child: ast.AST = node
    for parent in ctx.ancestors(node):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And) and child in parent.values:
            earlier = parent.values[:parent.values.index(child)]
            if any(_tensor_isinstance(v, node.id, ctx) for v in earlier):
                yield True  # `isinstance(v, torch.Tensor) and len(v) ...`
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            test, negated = parent.test, False
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negated = test.operand, True
            in_body = child in parent.body if isinstance(parent.body, list) else child is parent.body
            # `isinstance(v, T) and ...` is true only where v is a tensor; its `else` says nothing
            joined = (not negated and in_body and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
                      and any(_tensor_isinstance(v, node.id, ctx) for v in test.values))
            if _tensor_isinstance(test, node.id, ctx) or joined:
                holds = in_body != negated
                branch = parent.body if in_body else parent.orelse
                if not (holds and unbound_since and _rebound_before(node, branch, ctx)):
                    yield holds
        child = parent


def _rebound_before(node: ast.Name, branch: ast.AST | list[ast.stmt], ctx: "FunctionContext") -> bool:
    """The branch binds the name before the read, or in a loop around the read (a later step sees it)."""
    statements = branch if isinstance(branch, list) else [branch]
    stores = [n for statement in statements for n in walk(statement) if isinstance(n, ast.Name)
              and n.id == node.id and isinstance(n.ctx, (ast.Store, ast.Del))]
    if any(_runs_before(s, node, ctx) for s in stores):
        return True
    loops = [a for a in ctx.ancestors(node) if isinstance(a, LOOPS)]
    return any(any(s in set(walk(loop)) for s in stores) for loop in loops)


ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign)


def _runs_before(store: ast.Name, read: ast.Name, ctx: "FunctionContext") -> bool:
    """The store may run before the read: it comes first in the text (a `with ... as v:` or a `for
    v in` header around the read too), unless it is the target of the assignment whose value holds
    the read (`v = v.to(...)` reads `v` before binding it)."""
    statement = next((a for a in ctx.ancestors(store) if isinstance(a, ast.stmt)), None)
    if isinstance(statement, ASSIGNMENTS) and statement.value is not None and any(
            n is read for n in walk(statement.value)):
        return False
    return (store.lineno, store.col_offset) < (read.lineno, read.col_offset)


def _tensor_isinstance(test: ast.expr, name: str, ctx: "FunctionContext") -> bool:
    """`isinstance(name, torch.Tensor)` (a tuple of types counts only as one type: the tensor)."""
    return (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == name
            and ctx.qualname(test.args[1]) == "torch.Tensor")  # (not a Parameter: a plain tensor is none)
