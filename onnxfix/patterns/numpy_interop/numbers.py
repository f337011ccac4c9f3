"""NumPy calls on sizes whose result is a Python number (`np.prod(x.shape)`): not arrays, so
not part of the NumPy region; each has a Python twin that computes the same number, rewritten
on its own."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix


@dataclass(frozen=True)
class NumberCall:
    call: ast.Call
    name: str  # the numpy function: prod
    twin: str  # what replaces it: math.prod
    unsafe: str  # why the twin may give another value; "" when it cannot


def number_call(node: ast.AST, ctx: FunctionContext) -> NumberCall | None:
    """``node`` as `np.prod(S)`, S a shape (`x.shape`, `x.shape[1:]`, `x.size()`, a name bound
    once to one): `math.prod(S)`, the same product as a Python int where NumPy gives an int64.
    Unsafe: for an empty shape (a 0-d tensor, `x.shape[1:]` of a 1-d one) NumPy gives the float
    1.0 and math.prod the int 1. Measured on torch 2.13 (tests/test_values_exporters.py): the
    legacy exporter bakes `np.prod` of traced sizes in, `math.prod` of them exports dynamic.
    Not `int(np.sqrt(n))` -> `int(math.sqrt(n))` (exact, but no form of an integer square root
    of a size exports dynamic: ONX203) nor `int(np.round(q))` -> `int(round(q))` (the builtin
    raises on a tensor: the legacy exporter's traced sizes, measured)."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    if ctx.qualname(node.func) == "numpy.prod" and _is_shape(node.args[0], ctx):
        reason = "for an empty shape `numpy.prod` gives the float 1.0 where `math.prod` gives the int 1"
        return NumberCall(node, "prod", "math.prod", reason)
    return None


def number_fix(found: NumberCall, ctx: FunctionContext) -> Fix | None:
    module, function = found.twin.split(".")
    name = ctx.module_name(module)
    if name is None:
        return None  # `math` is another value here: no name to reach the module by
    return Fix(f"Use `{found.twin}`", (ctx.replace(found.call.func, f"{name[0]}.{function}"),),
               safe=not found.unsafe, imports=name[1])


def _is_shape(node: ast.expr, ctx: FunctionContext, bound: bool = True) -> bool:
    """`x.shape`, `x.shape[a:b]`, `x.size()`, a name bound once to one of those, or a parameter
    that every call site passes one to (AtmoRep's `num_tokens = token_seq.shape[-6:-3]` handed
    to its positional encoding), never rebound."""
    while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        return not node.args and not node.keywords
    if bound and isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        return len(values) == 1 and isinstance(values[0], ast.expr) and _is_shape(values[0], ctx, bound=False)
    if bound and isinstance(node, ast.Name) and ctx.is_parameter(node.id) and not ctx.assignments(node.id):
        return ctx.across_calls("shape", node.id, lambda caller, argument: _is_shape(argument, caller))
    return False
