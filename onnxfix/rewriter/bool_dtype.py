"""Which expressions are bool tensors (the dtype ONNX lacks kernels for, and the one
`torch.where` takes as a condition): read from the code, conservatively, or from a recorded run.

A tensor counts as bool only where no other dtype is possible: `t.any()` of a uint8 tensor is
uint8, `t.view(torch.uint8)` reinterprets, `x is y` is a Python bool.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.names import walk_scope
from onnxfix.rewriter.tree_walk import walk

BOOL_METHODS = frozenset({
    "eq", "ne", "lt", "le", "gt", "ge", "bool", "logical_not", "logical_and", "logical_or", "logical_xor",
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isclose",
})
# bool for a bool receiver only: on uint8 they return uint8
RECEIVER_DTYPE_METHODS = frozenset({"any", "all"})
BOOL_FUNCTIONS = frozenset(f"torch.{name}" for name in BOOL_METHODS | {"isin", "eq", "ne", "gt", "ge", "lt", "le"})
FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.zeros_like", "torch.ones_like",
                       "torch.empty_like", "torch.full_like", "torch.tensor", "torch.as_tensor"})
BOOL_DTYPES = frozenset({"torch.bool"})
# `view` is not here: `t.view(torch.uint8)` reinterprets the dtype
KEEPING_METHODS = frozenset({"clone", "detach", "contiguous", "flatten", "reshape", "unsqueeze", "squeeze",
                             "transpose", "permute", "expand", "expand_as", "repeat", "flip", "t"})


def is_bool_tensor(node: ast.AST, ctx: FunctionContext, depth: int = 0) -> bool:
    """A tensor of dtype bool: a comparison with a tensor, a bool method or function of one,
    `~`/`&`/`|`/`^` of bool tensors, a factory or cast with `torch.bool`, a view or index of
    one, a name bound only to those; or whatever a recorded run saw as bool tensors only."""
    if depth > 8:
        return False
    if ctx.tensors.dtype(node) == "bool":
        return True
    if isinstance(node, ast.Compare):  # `is` and `in` give Python bools
        return not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops) and any(
            ctx.tensors.is_tensor(o) for o in [node.left, *node.comparators])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return is_bool_tensor(node.operand, ctx, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Add)):
        return is_bool_tensor(node.left, ctx, depth + 1) and is_bool_tensor(node.right, ctx, depth + 1)
    if isinstance(node, ast.Subscript):
        return is_bool_tensor(node.value, ctx, depth + 1)
    if isinstance(node, ast.Call):
        return _bool_call(node, ctx, depth)
    if isinstance(node, ast.Attribute) and ctx.is_self_attr(node) and _stored_once(node.attr, ctx):
        value = ctx.self_attr_value(node)  # `self.keep = torch.ones(4, dtype=torch.bool)` in __init__
        return value is not None and is_bool_tensor(value, ctx, depth + 1)
    if isinstance(node, ast.Name) and (id(ctx.fn.node), node.id) in _ASSUMED:
        return True  # `mask = mask + keep`: bool if its other values are
    if isinstance(node, ast.Name) and ctx.is_parameter(node.id):
        if not ctx.assignments(node.id):
            return _used_as_mask(node.id, ctx)
        reaching = reaching_value(node, ctx)  # `mask = mask.bool()` before the read; the argument itself: unknown
        return reaching is not None and is_bool_tensor(reaching, ctx, depth + 1)
    if isinstance(node, ast.Name):
        reaching = reaching_value(node, ctx)  # a name rebound to other types later: the value read here
        return is_bool_tensor(reaching, ctx, depth + 1) if reaching is not None else _bool_name(node.id, ctx, depth)
    return False


# (function, name) pairs being decided: a name's value computed from itself
_ASSUMED: set[tuple[int, str]] = set()


def _bool_name(name: str, ctx: FunctionContext, depth: int) -> bool:
    """Every value bound to the name is a bool tensor; a value computed from the name itself
    (`mask = mask + self.keep_matrix`) is, when the rest of it is, given one value that is not."""
    values = ctx.assignments(name)
    if not values or all(_mentions(v, name) for v in values):
        return False
    key = (id(ctx.fn.node), name)
    _ASSUMED.add(key)
    try:
        return all(isinstance(v, ast.expr) and is_bool_tensor(v, ctx, depth + 1) for v in values)
    finally:
        _ASSUMED.discard(key)


def _mentions(value: object, name: str) -> bool:
    return isinstance(value, ast.AST) and any(isinstance(n, ast.Name) and n.id == name for n in walk(value))


# Tensor methods whose first argument must be a bool tensor (eager raises otherwise)
MASK_METHODS = frozenset({"masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_", "masked_select"})


def _used_as_mask(name: str, ctx: FunctionContext) -> bool:
    """A parameter the function passes as the mask of `masked_fill` (possibly inverted or
    indexed, `x.masked_fill(~mask[:, None], v)`): where the function runs, it is bool."""
    for node, _ in walk_scope(ctx.fn.node):  # not into nested functions and lambdas
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MASK_METHODS \
                and node.args and _mask_name(node.args[0]) == name:
            return True
    return False


def _mask_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.UnaryOp, ast.Subscript)) and (isinstance(node, ast.Subscript) or isinstance(node.op, ast.Invert)):
        node = node.value if isinstance(node, ast.Subscript) else node.operand
    return node.id if isinstance(node, ast.Name) else None


def _stored_once(attr: str, ctx: FunctionContext) -> bool:
    """`self.<attr>` is bound by one statement of the class: no other method rebinds it."""
    return len(ctx.fn.cls.writers(attr)) == 1


def _bool_call(node: ast.Call, ctx: FunctionContext, depth: int) -> bool:
    func = node.func
    qualname = ctx.qualname(func)
    if qualname in BOOL_FUNCTIONS:
        return True
    if qualname in FACTORIES:
        return any(k.arg == "dtype" and ctx.qualname(k.value) in BOOL_DTYPES for k in node.keywords)
    if not isinstance(func, ast.Attribute) or qualname is not None and qualname.startswith(("torch.", "numpy.")):
        return False
    receiver = func.value
    if func.attr in BOOL_METHODS:
        return bool(ctx.tensors.is_tensor(receiver)) or is_bool_tensor(receiver, ctx, depth + 1)
    if func.attr in RECEIVER_DTYPE_METHODS:
        return is_bool_tensor(receiver, ctx, depth + 1)
    if func.attr in ("to", "type") and len(node.args) == 1 and ctx.qualname(node.args[0]) in BOOL_DTYPES:
        return True
    if func.attr in KEEPING_METHODS or func.attr == "view" and _view_by_sizes(node, ctx):
        return is_bool_tensor(receiver, ctx, depth + 1)
    return False


def _view_by_sizes(node: ast.Call, ctx: FunctionContext) -> bool:
    """`m.view(-1)`, `m.view(b, n)`: a view by sizes keeps the dtype (`t.view(torch.uint8)`
    reinterprets it)."""
    def dtype_like(arg: ast.expr) -> bool:  # `torch.uint8`, `other.dtype`, `self.dtype`, `dt`
        qualname = ctx.qualname(arg)
        if qualname is not None and qualname.startswith(("torch.", "numpy.")) and qualname != "torch.Size":
            return True
        named = arg.attr if isinstance(arg, ast.Attribute) else arg.id if isinstance(arg, ast.Name) else ""
        return "dtype" in named.lower() or named.lower() in ("dt", "type_", "typ")
    return bool(node.args) and not node.keywords and not any(dtype_like(a) for a in node.args)


