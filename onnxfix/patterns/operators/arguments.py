"""Arguments held in variables, read as the literals they hold.

An operator variant is decided by its arguments (`antialias=True`, `mode="bicubic"`,
`divisor_override=1`), and model code often passes them through a variable: DINOv2's
`antialias=self.interpolate_antialias`, set in __init__ from a parameter defaulting to True. The
rules judge a call with each such argument replaced by the one literal it holds; the fix still
writes the call as it is spelled (the helpers take any value: a variant they do not decompose runs
the torch op itself)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext

_UNRESOLVED = object()


def with_resolved_arguments(call: ast.Call, ctx: FunctionContext) -> ast.Call:
    """``call`` with every argument that holds one known literal replaced by it (``call`` itself
    when none does)."""
    args = [_resolved(a, ctx) for a in call.args]
    keywords = [ast.keyword(k.arg, _resolved(k.value, ctx)) for k in call.keywords]
    if all(a is b for a, b in zip(args, call.args)) and all(k.value is o.value for k, o in zip(keywords, call.keywords)):
        return call
    return ast.copy_location(ast.Call(call.func, args, keywords), call)


def _resolved(node: ast.expr, ctx: FunctionContext) -> ast.expr:
    value = held_literal(node, ctx)
    return node if value is _UNRESOLVED else ast.copy_location(ast.Constant(value), node)


def held_literal(node: ast.expr, ctx: FunctionContext):
    """The literal a local name or a ``self.<attr>`` holds, or _UNRESOLVED."""
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        return _single([_literal(v) for v in _assigned_values(node.id, ctx)])
    if ctx.is_self_attr(node):
        value = ctx.self_attr_value(node)
        if value is None:
            return _UNRESOLVED
        found = _literal(value)
        if found is _UNRESOLVED and isinstance(value, ast.Name):
            found = _init_default(ctx, value.id)
        return found
    return _UNRESOLVED


def _assigned_values(name: str, ctx: FunctionContext) -> list[ast.expr | None]:
    """The values of every plain ``name = <value>`` in the function (None for any other binding:
    unpacking, augmented assignment, a loop target, which the scan records as the statement)."""
    return [assigned if isinstance(assigned, ast.expr) else None for assigned in ctx.assignments(name)]


def _init_default(ctx: FunctionContext, name: str):
    """The literal default of __init__'s parameter ``name`` (the value the attribute has unless
    the model is built with another one)."""
    init = ctx.fn.cls.methods.get("__init__") if ctx.fn.cls is not None else None
    if init is None:
        return _UNRESOLVED
    args = init.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    default = defaults.get(name)
    return _UNRESOLVED if default is None else _literal(default)


def _literal(node: ast.expr | None):
    if node is None:
        return _UNRESOLVED
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNRESOLVED


def _single(values: list):
    if not values or any(v is _UNRESOLVED for v in values):
        return _UNRESOLVED
    first = values[0]
    return first if all(type(v) is type(first) and v == first for v in values) else _UNRESOLVED
