"""Arguments held in variables, read as the literals they hold.

An operator variant is decided by its arguments (`antialias=True`, `mode="bicubic"`,
`divisor_override=1`), and model code often passes them through a variable: DINOv2's
`antialias=self.interpolate_antialias`, set in __init__ from a parameter defaulting to True. The
rules judge a call with each such argument replaced by the one literal it holds; the fix still
writes the call as it is spelled (the helpers take any value: a variant they do not decompose runs
the torch op itself)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.config_numbers import parameter_defaults
from onnxfix.rewriter.constructed import constructor_arguments
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.tree_walk import walk

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
    if isinstance(node, ast.Name) and not ctx.assignments(node.id):  # a parameter never rebound
        return _parameter_value(ctx, node.id)
    if ctx.is_self_attr(node):
        value = ctx.only_self_attr_value(node)  # a mode chosen by a branch of __init__ is no literal
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


def _parameter_value(ctx: FunctionContext, name: str):
    """A parameter's literal: what every call in the file passes (`resize(x, size)` leaving
    `antialias=True` to its default), the default where no call is known. Unresolved while the
    same question is being answered higher up (functions calling each other)."""
    default = parameter_defaults(ctx.fn.node).get(name)
    bindings = ctx.parameter_bindings(name)
    if bindings is None and ctx.file.calls is not None and ctx.fn.cls is None:
        found = ctx.file.calls.some_bindings(ctx.fn, name)
        if len(found) < ctx.file.calls.call_count(ctx.fn):  # some calls leave it to the default
            found = [*found, (None, default)]
        bindings = found or None
    if not bindings:
        return _UNRESOLVED if default is None else _literal(default)
    progress = ctx.file.calls.in_progress if ctx.file.calls is not None else set()
    key = ("literal", id(ctx.fn.node), name)
    if key in progress:
        return _UNRESOLVED
    progress.add(key)
    try:
        # a literal passed, or the literal default a call leaves (callsites.py binds it), as it is
        return _single([_literal(value) if caller is None or isinstance(value, ast.Constant)
                        else held_literal(value, caller) if value is not None
                        else _UNRESOLVED for caller, value in bindings])
    finally:
        progress.discard(key)


def _init_default(ctx: FunctionContext, name: str):
    """What __init__'s parameter ``name`` is built with: the literals the file's constructions of
    the class pass (`MyModel(scale, mode)` after `mode = 'area'`), else its literal default."""
    init = ctx.fn.cls.methods.get("__init__") if ctx.fn.cls is not None else None
    if init is None:
        return _UNRESOLVED
    passed = _constructed_with(ctx, init, name)
    if passed:
        return _single(passed)
    default = parameter_defaults(init).get(name)
    return _UNRESOLVED if default is None else _literal(default)


def _constructed_with(ctx: FunctionContext, init: ast.FunctionDef, name: str) -> list:
    """The literal each construction of the class in this file passes to ``name`` (a literal, or a
    name the file assigns one literal); [] when no construction passes it. The constructions are
    rewriter/constructed.py's, the class matched by its name."""
    positional = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    cls = ctx.fn.cls
    module = ctx.file.module

    def class_named(_, expr):
        parts = dotted_parts(expr)
        return (module, cls) if parts and parts[-1] == cls.name else None

    position = positional.index(name) if name in positional else None
    values = []
    for argument in constructor_arguments(module, cls, position, name, class_named):
        value = _literal(argument)
        if value is _UNRESOLVED and isinstance(argument, ast.Name):
            value = _single([_literal(n.value) for n in walk(module.tree) if isinstance(n, ast.Assign)
                             and any(isinstance(t, ast.Name) and t.id == argument.id for t in n.targets)])
        values.append(value)
    return values



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


# ---- arguments of a call, as written ----------------------------------------------------------
def argument(node: ast.Call, name: str, position: int, method: bool = False) -> ast.AST | None:
    """The argument bound to parameter ``name`` (keyword, or ``position`` in the function
    form; a method call's receiver is the first), None if not given."""
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    position -= 1 if method else 0
    return node.args[position] if 0 <= position < len(node.args) else None


NOT_LITERAL = object()


def literal(node: ast.AST | None, default=None):
    """The value of a literal argument (numbers, strings, tuples of them, `-2`), ``default`` for
    an argument not given (None), NOT_LITERAL for any other expression."""
    if node is None:
        return default
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return NOT_LITERAL


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
