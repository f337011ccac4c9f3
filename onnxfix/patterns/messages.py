"""Statements whose only effect is a message (a warning, a log record, a print): an `if` around
them is a check, not a choice between computations, and eager alone needs to run them."""

from __future__ import annotations

import ast

from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

IS_EXPORTING_SINCE = (2, 6)  # torch.compiler.is_exporting()
LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical",
                        "warning_once", "info_once"})  # transformers' loggers say each message once
# builtins a message's text may be computed with (nothing else is called while building one)
_TEXT_BUILTINS = frozenset({"str", "repr", "len", "type", "format", "round", "int", "float"})


def test_skippable_when_exporting(test: ast.expr) -> bool:
    """`not torch.compiler.is_exporting() and (<test>)` tests as before in eager: given a torch that
    has the function (2.6+; read from the installed package's metadata, never imported), and no
    `:=` in the test (not bound while exporting: a later read of its name would fail)."""
    from onnxfix.rewriter.exporter_inference import installed_torch_version

    version = installed_torch_version()
    return version is not None and version >= IS_EXPORTING_SINCE and not any(
        isinstance(n, ast.NamedExpr) for n in walk(test))


def is_message(statement: ast.stmt, ctx: FunctionContext) -> bool:
    return isinstance(statement, ast.Expr) and reports_only(statement.value, ctx)


def message_block(statements: list[ast.stmt], ctx: FunctionContext, block: ast.AST) -> bool:
    """Statements whose only effect is a message (transformers' padding warning: the text built
    in a name, `+=` a note under an `if` on the config, then `logger.warning(text)`): message
    calls, `pass`, assignments of text to names read nowhere outside ``block``, and `if`s on
    such values around more of the same; at least one message."""
    return _messages_only(statements, ctx, block) and any(
        is_message(node, ctx) for statement in statements for node in walk(statement) if isinstance(node, ast.stmt))


def _messages_only(statements: list[ast.stmt], ctx: FunctionContext, block: ast.AST) -> bool:
    for statement in statements:
        if is_message(statement, ctx) or isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, (ast.Assign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if (len(targets) == 1 and isinstance(targets[0], ast.Name) and _text_only(statement.value, ctx)
                    and _local_to(targets[0].id, block, ctx)):
                continue
        if isinstance(statement, ast.If) and _text_only(statement.test, ctx) \
                and _messages_only(statement.body, ctx, block) and _messages_only(statement.orelse, ctx, block):
            continue
        return False
    return True


def _text_only(value: ast.expr, ctx: FunctionContext) -> bool:
    """An expression that only reads: no call but a text builtin or `.format`, no `:=`, no yield."""
    for node in walk(value):
        if isinstance(node, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda)):
            return False
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "format":
                continue
            if not (isinstance(func, ast.Name) and func.id in _TEXT_BUILTINS and ctx.is_builtin(func.id)):
                return False
    return True


def _local_to(name: str, block: ast.If, ctx: FunctionContext) -> bool:
    """``name`` is a plain local of the function whose every use is in ``block``'s branches (not
    its test, not a parameter, `global` or `nonlocal`), first bound there by a plain assignment:
    `t *= 0` of a tensor passed in changes the caller's tensor, which no message does."""
    if ctx.is_parameter(name) or ctx.declared_outer(name):
        return False
    inside = {id(node) for branch in (block.body, block.orelse) for statement in branch for node in walk(statement)}
    uses = [node for node in walk(ctx.fn.node) if isinstance(node, ast.Name) and node.id == name]
    if any(id(node) not in inside for node in uses):
        return False
    first = min(uses, key=lambda node: (node.lineno, node.col_offset))
    return isinstance(first.ctx, ast.Store) and not isinstance(ctx.parent(first), ast.AugAssign)


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
    for node in walk(ast.Tuple(elts=[*call.args, *(k.value for k in call.keywords)], ctx=ast.Load())):
        if isinstance(node, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                in_place_method(node.func.attr) or node.func.attr in CONTAINER_MUTATORS):
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
                and _logger_factory(ctx.file.module.scope.qualname(statement.value.func))):
            return True
    return False


def _logger_factory(qualname: str | None) -> bool:
    """`logging.getLogger`, or a library's wrapper of it (transformers' `logging.get_logger`)."""
    return qualname == "logging.getLogger" or (qualname or "").endswith(".get_logger")
