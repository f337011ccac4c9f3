"""Statements whose only effect is a message (a warning, a log record, a print): an `if` around
them is a check, not a choice between computations, and eager alone needs to run them."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.tensors import in_place_method

IS_EXPORTING_SINCE = (2, 6)  # torch.compiler.is_exporting()
LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical"})


def test_skippable_when_exporting(test: ast.expr) -> bool:
    """`not torch.compiler.is_exporting() and (<test>)` tests as before in eager: given a torch that
    has the function (2.6+; read from the installed package's metadata, never imported), and no
    `:=` in the test (not bound while exporting: a later read of its name would fail)."""
    from onnxfix.rewriter.exporter_inference import installed_torch_version

    version = installed_torch_version()
    return version is not None and version >= IS_EXPORTING_SINCE and not any(
        isinstance(n, ast.NamedExpr) for n in ast.walk(test))


def is_message(statement: ast.stmt, ctx: FunctionContext) -> bool:
    return isinstance(statement, ast.Expr) and reports_only(statement.value, ctx)


def reports_only(value: ast.expr, ctx: FunctionContext) -> bool:
    """`warnings.warn(...)`, `print(...)`, `logging.warning(...)` or `<logger>.warning(...)`: a call
    whose only effect is a message."""
    if not isinstance(value, ast.Call) or has_effects(value):
        return False
    qualname = ctx.qualname(value.func)
    if qualname == "warnings.warn" or (qualname or "").startswith("logging."):
        return True
    if isinstance(value.func, ast.Name):
        return value.func.id == "print" and ctx.is_builtin("print")
    return is_logger(value.func, ctx)


def has_effects(call: ast.Call) -> bool:
    """An argument that does more than compute the message: an in-place method (`x.clamp_()`),
    a `:=`, a `yield`."""
    for node in ast.walk(ast.Tuple(elts=[*call.args, *(k.value for k in call.keywords)], ctx=ast.Load())):
        if isinstance(node, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and in_place_method(node.func.attr):
            return True
    return False


def is_logger(func: ast.expr, ctx: FunctionContext) -> bool:
    """`logger.warning` with `logger = logging.getLogger(...)` bound at the module's top level
    (and not rebound in the function)."""
    if not (isinstance(func, ast.Attribute) and func.attr in LOG_LEVELS and isinstance(func.value, ast.Name)):
        return False
    if ctx.assignments(func.value.id) or ctx.is_parameter(func.value.id):
        return False
    for statement in ctx.file.module.tree.body:
        if (isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == func.value.id for t in statement.targets)
                and isinstance(statement.value, ast.Call)
                and ctx.file.module.scope.qualname(statement.value.func) == "logging.getLogger"):
            return True
    return False
