"""Which expressions are integer tensors (uint8 ... int64, never bool): read from the code,
conservatively, or from a recorded run. The legacy exporter translates `|` and `^` for bool
tensors only: an integer operand is what makes the operator fail (pix2pixHD's uint8 edge map).
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.bool_dtype import FACTORIES, KEEPING_METHODS
from onnxfix.rewriter.context import FunctionContext

INTEGER_DTYPES = frozenset({"uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"})
INTEGER_NAMES = frozenset({f"torch.{d}" for d in INTEGER_DTYPES} | {"torch.long", "torch.int", "torch.short"})
INTEGER_METHODS = frozenset({"long", "int", "short", "byte", "char"})
HELPERS = frozenset({"_onnx_bitwise_or", "_onnx_bitwise_xor"})  # ONX519's: an integer in, an integer out
INTEGER_CONSTRUCTORS = frozenset(f"{module}.{name}" for module in ("torch", "torch.cuda") for name in (
    "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor"))


def is_integer_tensor(node: ast.AST, ctx: FunctionContext, depth: int = 0) -> bool:
    """A tensor of an integer dtype: a typed constructor (`torch.ByteTensor(...)`), a factory or
    cast naming an integer dtype, an integer cast method (`.long()`), a view or index of one, a
    name bound only to those; or what a recorded run saw as integer tensors only."""
    if depth > 8:
        return False
    if ctx.tensors.dtype(node) in INTEGER_DTYPES:
        return True
    if isinstance(node, ast.Subscript):
        return is_integer_tensor(node.value, ctx, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.BitXor, ast.BitAnd)):
        # an integer with a bool or an integer stays an integer (`edge | (t > 0) | (t < -1)`)
        return is_integer_tensor(node.left, ctx, depth + 1) or is_integer_tensor(node.right, ctx, depth + 1)
    if isinstance(node, ast.Call):
        return _integer_call(node, ctx, depth)
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        return _integer_name(node.id, ctx, depth)
    return False


# (function, name) pairs being decided: `edge = edge | m` reads the name it binds
_ASSUMED: set[tuple[int, str]] = set()


def _integer_name(name: str, ctx: FunctionContext, depth: int) -> bool:
    """Every value bound to the name is an integer tensor; one computed from the name itself
    is, when the rest of it is, given one value that is not computed from it."""
    key = (id(ctx.fn.node), name)
    if key in _ASSUMED:
        return True
    values = ctx.assignments(name)
    if not values or not any(isinstance(v, ast.expr) and not _mentions(v, name) for v in values):
        return False
    _ASSUMED.add(key)
    try:
        return all(isinstance(v, ast.expr) and is_integer_tensor(v, ctx, depth + 1) for v in values)
    finally:
        _ASSUMED.discard(key)


def _mentions(value: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))


def _integer_call(node: ast.Call, ctx: FunctionContext, depth: int) -> bool:
    qualname = ctx.qualname(node.func)
    if qualname in INTEGER_CONSTRUCTORS:
        return True
    if isinstance(node.func, ast.Name) and node.func.id in HELPERS:  # a fix already applied
        return any(is_integer_tensor(a, ctx, depth + 1) for a in node.args)
    dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    if qualname in FACTORIES:
        return dtype is not None and ctx.qualname(dtype) in INTEGER_NAMES
    if qualname is not None or not isinstance(node.func, ast.Attribute):
        return False
    method, receiver = node.func.attr, node.func.value
    if method in INTEGER_METHODS and not node.args:
        return ctx.tensors.is_tensor(receiver) is not False
    if method in ("to", "type") and ((node.args and ctx.qualname(node.args[0]) in INTEGER_NAMES)
                                     or (dtype is not None and ctx.qualname(dtype) in INTEGER_NAMES)):
        return ctx.tensors.is_tensor(receiver) is not False
    if method in KEEPING_METHODS or method in ("zero_", "fill_"):
        return is_integer_tensor(receiver, ctx, depth + 1)
    return False
