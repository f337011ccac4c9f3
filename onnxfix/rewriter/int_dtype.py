"""Which expressions are integer tensors (uint8 ... int64, never bool): read from the code,
conservatively, or from a recorded run. The legacy exporter translates `|` and `^` for bool
tensors only: an integer operand is what makes the operator fail (pix2pixHD's uint8 edge map).
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.bool_dtype import FACTORIES, KEEPING_METHODS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import unpacked_element
from onnxfix.rewriter.none_defaults import rebound_elsewhere
from onnxfix.rewriter.tree_walk import walk

INTEGER_DTYPES = frozenset({"uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"})
INTEGER_NAMES = frozenset({f"torch.{d}" for d in INTEGER_DTYPES} | {"torch.long", "torch.int", "torch.short"})
INTEGER_METHODS = frozenset({"long", "int", "short", "byte", "char"})
HELPERS = frozenset({"_onnx_bitwise_or", "_onnx_bitwise_xor"})  # ONX519's: an integer in, an integer out
# the typed integer constructors and the dtype each makes
CONSTRUCTOR_DTYPES = {f"{module}.{name}": dtype for module in ("torch", "torch.cuda") for name, dtype in (
    ("IntTensor", "int32"), ("ShortTensor", "int16"), ("CharTensor", "int8"), ("ByteTensor", "uint8"),
    ("LongTensor", "int64"))}
INTEGER_CONSTRUCTORS = frozenset(CONSTRUCTOR_DTYPES)


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
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(value))


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


# Integer dtypes narrower than int64, the dtype of the legacy exporter's sizes.
NARROW_DTYPES = frozenset({"int32", "int16", "int8", "uint8"})
NARROW_NAMES = {"torch.int32": "int32", "torch.int": "int32", "torch.int16": "int16", "torch.short": "int16",
                "torch.int8": "int8", "torch.uint8": "uint8"}
NARROW_METHODS = {"int": "int32", "short": "int16", "char": "int8", "byte": "uint8"}
# Reductions that keep the dtype when called with no argument (`sum`/`prod` promote to int64).
KEEPING_REDUCTIONS = frozenset({"max", "min", "amax", "amin"})
# Python-int arithmetic that keeps a tensor's integer dtype (`n.int() + 1`).
KEEPING_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def narrow_integer_dtype(node: ast.AST, ctx: FunctionContext, depth: int = 0) -> str | None:
    """The dtype of a tensor of an integer dtype narrower than int64 (int32, int16, int8,
    uint8): a cast to one (`.int()`, `.to(torch.int32)`), a factory or constructor of one, a
    view, index or dtype-keeping reduction of one, Python-int arithmetic on one, a name bound
    only to those; or what a recorded run saw, where no binding of the name could be another
    value (a number, or a value computed from a parameter a caller may pass as an int). None
    where that is not shown."""
    if depth > 8:
        return None
    if isinstance(node, ast.Name):
        return _narrow_name(node, ctx, depth)
    seen = ctx.tensors.dtype(node)
    if seen is not None:
        return seen if seen in NARROW_DTYPES else None
    if isinstance(node, ast.Subscript):
        return narrow_integer_dtype(node.value, ctx, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, KEEPING_OPERATORS):
        return _narrow_arithmetic(node, ctx, depth)
    if isinstance(node, ast.Call):
        return _narrow_call(node, ctx, depth)
    return None


def _narrow_name(node: ast.Name, ctx: FunctionContext, depth: int) -> str | None:
    """Every binding of the name narrow (read from the code), else the run's dtype where every
    binding could only be a tensor; a parameter never (a caller may pass a Python int)."""
    if ctx.is_parameter(node.id) or ctx.inner_scope(node) is not None or rebound_elsewhere(ctx.fn.node, node.id):
        return None
    values = [unpacked_element(v, node.id) if isinstance(v, ast.Assign) else v for v in ctx.assignments(node.id)]
    if not values or not all(isinstance(v, ast.expr) for v in values):
        return None
    dtypes = {narrow_integer_dtype(v, ctx, depth + 1) for v in values}
    if len(dtypes) == 1 and None not in dtypes:
        return dtypes.pop()
    seen = ctx.tensors.dtype(node)
    if seen in NARROW_DTYPES and not any(_maybe_a_number(v, ctx) for v in values):
        return seen
    return None


# a parameter read only for its size or type is no value a caller could pass as a number
SIZE_READS = frozenset({"shape", "size", "ndim", "dim", "dtype", "device", "numel"})


def _maybe_a_number(value: ast.expr, ctx: FunctionContext) -> bool:
    """A binding that may hold a Python number on a call the run did not see: a literal, a value
    not known to be a tensor, or one computed from a parameter's value (`n + 1`)."""
    if isinstance(value, ast.Constant) or ctx.tensors.is_tensor(value) is False:
        return True
    return any(isinstance(n, ast.Name) and ctx.is_parameter(n.id) and n.id not in ("self", "cls")
               and not (isinstance(ctx.parent(n), ast.Attribute) and ctx.parent(n).attr in SIZE_READS)
               for n in walk(value))


def _narrow_arithmetic(node: ast.BinOp, ctx: FunctionContext, depth: int) -> str | None:
    """One side narrow, the other the same dtype or a Python int (a literal, a size): a
    tensor of another dtype or a float would promote."""
    left, right = (narrow_integer_dtype(side, ctx, depth + 1) for side in (node.left, node.right))
    if left and right:
        return left if left == right else None
    narrow, other = (left, node.right) if left else (right, node.left)
    if narrow is None:
        return None
    # a proven Python int (a literal, a size): float math on a size would promote
    python_int = (isinstance(other, ast.Constant) and type(other.value) is int) or ctx.ints.is_int(other)
    return narrow if python_int else None


def _narrow_call(node: ast.Call, ctx: FunctionContext, depth: int) -> str | None:
    qualname = ctx.qualname(node.func)
    if qualname in CONSTRUCTOR_DTYPES:
        return CONSTRUCTOR_DTYPES[qualname] if CONSTRUCTOR_DTYPES[qualname] in NARROW_DTYPES else None
    dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    named = NARROW_NAMES.get(ctx.qualname(dtype) or "") if dtype is not None else None
    if qualname in FACTORIES or qualname == "torch.arange":
        return named
    if qualname is not None or not isinstance(node.func, ast.Attribute):
        return None
    method, receiver = node.func.attr, node.func.value
    if ctx.tensors.is_tensor(receiver) is False:
        return None
    if method in NARROW_METHODS and not node.args and not node.keywords:
        return NARROW_METHODS[method]
    if method in ("to", "type"):
        return NARROW_NAMES.get(ctx.qualname(node.args[0]) or "") if node.args else named
    keeps = (method in KEEPING_REDUCTIONS and not node.args and not node.keywords) or method in KEEPING_METHODS
    return narrow_integer_dtype(receiver, ctx, depth + 1) if keeps else None


# Words one of which a file holding a narrow integer tensor's source spells (a recorded run's
# dtype aside, a file without any is not parsed for the rules asking narrow_integer_dtype).
NARROW_TRIGGERS = ("int", "short", "char", "byte", "int32", "int16", "int8", "uint8",
                   "IntTensor", "ShortTensor", "CharTensor", "ByteTensor")
