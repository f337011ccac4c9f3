"""Sizes that depend on tensor values: `x[mask].numel()`, `len(t.nonzero())`, `torch.unique(t).shape[0]`.

A size read from a tensor whose own size comes from its values is an unbacked symbol under
torch.export: a Python branch on it stops the capture (GuardOnDataDependentSymNode), while the
legacy exporter records the export-time answer. Static and torch-free, like every oracle here.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.bindings import bound_once, only_value
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.sizes import SIZE_QUERY_METHODS

# Calls whose result has a size read from the data.
DATA_SIZED_FUNCTIONS = frozenset({
    "torch.nonzero", "torch.argwhere", "torch.masked_select", "torch.unique", "torch.unique_consecutive",
    "torch.repeat_interleave",
})
DATA_SIZED_METHODS = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive"})
# Tensor methods whose result has the receiver's shape: a selection cast or copied (BEVDet's
# `torch.where(kept)[0].int()`) is as long as the selection.
SHAPE_KEEPING_METHODS = frozenset({
    "int", "long", "float", "double", "half", "bool", "to", "type", "contiguous", "clone", "detach", "cpu", "cuda",
})
# Methods that keep a boolean mask a mask (shape and layout changes, logical ops).
MASK_PRESERVING = frozenset({
    "unsqueeze", "squeeze", "expand", "expand_as", "view", "reshape", "flatten", "repeat", "bool", "logical_and",
    "logical_or", "logical_not", "logical_xor", "contiguous", "to", "permute", "transpose", "t",
    "all", "any",  # of a mask along a dim (Gemma 3: `(embeds == image_embed).all(-1)`): a mask
})
MASK_FUNCTIONS = frozenset({"torch.isnan", "torch.isinf", "torch.isfinite", "torch.logical_and",
                            "torch.logical_or", "torch.logical_not", "torch.eq", "torch.ne", "torch.gt",
                            "torch.ge", "torch.lt", "torch.le", "torch.isin"})
# The size methods whose answer a data-dependent size changes (the rank is static either way).
VALUE_SIZE_METHODS = SIZE_QUERY_METHODS - {"dim", "ndimension"}


def is_data_dependent_size(node: ast.AST, ctx) -> bool:
    """`t.numel()`, `t.size(0)`, `t.shape[0]`, `len(t)` of a tensor whose size depends on its values
    (not `t.size(2)`: a selection by the data sizes its first dimension, the rest are the input's)."""
    node = bound_once(node, ctx)  # `n = t.shape[0]` then `n == 0`
    receiver = _size_receiver(node, ctx)
    if receiver is None or (_later_dimension(node) and _sized_along_first(receiver, ctx)):
        return False
    return is_data_sized(receiver, ctx)


def _sized_along_first(receiver: ast.AST, ctx) -> bool:
    """The data sizes ``receiver``'s first dimension only: not a call choosing the dimension
    (`torch.unique(x, dim=1)`, `repeat_interleave(r, dim=1)`), directly or bound once."""
    call = _call_bound(receiver, ctx)
    chooses = call is not None and _data_sized_call(call, ctx) and (
        any(k.arg == "dim" for k in call.keywords) or len(call.args) > (1 if ctx.qualname(call.func) else 0) + 1)
    return not chooses


def _later_dimension(node: ast.AST) -> bool:
    """`t.shape[k]`, `t.size(k)` with a literal k >= 1."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        index = node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and len(node.args) == 1:
        index = node.args[0]
    else:
        return False
    return isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 1


def _size_receiver(node: ast.AST, ctx) -> ast.expr | None:
    if isinstance(node, ast.Subscript):
        node = node.value  # t.shape[0]
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in VALUE_SIZE_METHODS:
        return node.func.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        if ctx.is_builtin("len"):
            return node.args[0]
    return None


def is_data_sized(node: ast.AST, ctx, _seen: frozenset[str] = frozenset()) -> bool:
    """A tensor whose size is read from the data: a boolean-mask selection, nonzero, unique, ..."""
    if isinstance(node, ast.Name):
        if _passed_data_sized(node.id, ctx):
            return True
        return _all_assignments(node.id, ctx, _seen, is_data_sized)
    if isinstance(node, ast.Subscript):
        # `x[mask]`, `x[keep]` with `keep = torch.where(scores > t)[0]` (an index of data size)
        # `x[rows, cols]` with `rows` a nonzero's column: gathered at as many positions, along the
        # first dimension (an index after a slice, `x[:, keep]`, sizes another one)
        first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        return is_mask(node.slice, ctx, _seen) or _is_selection_index(first, ctx, _seen) or is_data_sized(
            node.value, ctx, _seen)
    if isinstance(node, ast.Call):
        if _keeps_shape(node, ctx) or _rows_regrouped(node, ctx):
            return is_data_sized(node.func.value, ctx, _seen)
        return _data_sized_call(node, ctx) or (ctx.qualname(node.func) == "torch.where" and len(node.args) == 1)
    return False


def _passed_data_sized(name: str, ctx) -> bool:
    """A parameter never rebound that every call passes a data-sized tensor (DeePMD's
    `_slot_occupancy(sw_e, ...)` with `sw_e` gathered at `nonzero`'s pairs)."""
    if not ctx.is_parameter(name) or ctx.assignments(name):
        return False
    return ctx.across_calls("data_sized", name, lambda caller, argument: is_data_sized(argument, caller))


def _keeps_shape(node: ast.Call, ctx) -> bool:
    """`t.int()`, `t.to(device)`: a method of a tensor with the tensor's shape (not `torch.<f>`)."""
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in SHAPE_KEEPING_METHODS and ctx.qualname(func) is None


def _rows_regrouped(node: ast.Call, ctx) -> bool:
    """`t.view(-1, c)` / `t.reshape(-1, c)`: the data's count is the first dimension's (AdaptSegNet's
    `predict[mask.view(n, h, w, 1).repeat(1, 1, 1, c)].view(-1, c)`)."""
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr in ("view", "reshape") and ctx.qualname(func) is None
            and bool(node.args) and int_constant(node.args[0]) == -1)


def _is_selection_index(node: ast.AST, ctx, _seen: frozenset[str]) -> bool:
    """An integer index whose length is read from the data: `torch.where(cond)[0]`, a
    `nonzero()` column, `unique(...)`, or a name bound only to such (not one element of them)."""
    if isinstance(node, ast.Name):
        return _all_assignments(node.id, ctx, _seen, _is_selection_index)
    if isinstance(node, ast.Call) and _keeps_shape(node, ctx):
        return _is_selection_index(node.func.value, ctx, _seen)
    if isinstance(node, ast.Subscript):
        call = _call_bound(node.value, ctx)  # `pair[:, 0]` after `pair = torch.nonzero(m)`
        if call is None:
            return False
        if ctx.qualname(call.func) == "torch.where" and len(call.args) == 1:
            return isinstance(node.slice, ast.Constant)  # one axis's positions
        if _data_sized_call(call, ctx):  # `nonzero()[:, 0]`: a column
            return (isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
                    and isinstance(node.slice.elts[0], ast.Slice) and isinstance(node.slice.elts[1], ast.Constant))
        return False
    return isinstance(node, ast.Call) and _data_sized_call(node, ctx)


def _call_bound(node: ast.expr, ctx) -> ast.Call | None:
    """``node`` if a call, or the call a local name is bound to once."""
    if isinstance(node, ast.Name):
        node = only_value(node.id, ctx)
    return node if isinstance(node, ast.Call) else None


def _data_sized_call(node: ast.Call, ctx) -> bool:
    if ctx.qualname(node.func) in DATA_SIZED_FUNCTIONS:
        return True
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in DATA_SIZED_METHODS and ctx.qualname(func) is None


def is_mask(node: ast.AST, ctx, _seen: frozenset[str] = frozenset()) -> bool:
    """A boolean tensor made by comparing values (the index of a selection of data-dependent size)."""
    if isinstance(node, ast.Compare):
        return any(ctx.tensors.is_tensor(operand) or _is_forward_input(_indexed_base(operand, ctx), ctx)
                   for operand in [node.left, *node.comparators])
    if isinstance(node, ast.Name):
        return _all_assignments(node.id, ctx, _seen, is_mask)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Mult)):
        # `(t >= 0) * (t != ignore)`: the product of two bool tensors is their logical and, a bool tensor
        return is_mask(node.left, ctx, _seen) and is_mask(node.right, ctx, _seen)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return is_mask(node.operand, ctx, _seen)
    if isinstance(node, ast.Call):
        if ctx.qualname(node.func) in MASK_FUNCTIONS:
            return True
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in MASK_PRESERVING):
            return False
        # `(ids == k).unsqueeze(-1)`: a Python bool has no such method, so the comparison was a tensor
        return isinstance(func.value, ast.Compare) or is_mask(func.value, ctx, _seen)
    return False


def _indexed_base(node: ast.AST, ctx) -> ast.AST:
    """The tensor ``node`` indexes or converts: `rois` of `rois[:, 0].long()` (mmcv's per-image
    RoI selection)."""
    while isinstance(node, ast.Subscript) or (isinstance(node, ast.Call) and _keeps_shape(node, ctx)):
        node = node.value if isinstance(node, ast.Subscript) else node.func.value
    return node


def _is_forward_input(node: ast.AST, ctx) -> bool:
    """An argument of forward itself: a tensor in every export (export's inputs are tensors); or a
    parameter of a function forward calls that every call passes a tensor or such an argument
    (Llama 4's `get_placeholder_mask(input_ids, ...)`: `input_ids == image_token_id` is a mask)."""
    if not (isinstance(node, ast.Name) and ctx.is_parameter(node.id) and node.id != ctx.self_name):
        return False
    if ctx.fn.is_entry:
        return True
    return ctx.across_calls("tensor_argument", node.id,
                            lambda caller, argument: caller.tensors.is_tensor(argument) or _is_forward_input(argument, caller))


def _all_assignments(name: str, ctx, seen: frozenset[str], predicate) -> bool:
    """Every binding of the local ``name`` satisfies ``predicate``. A binding reading the name
    itself (`mask = mask.unsqueeze(-1).expand_as(x)`, Gemma 3's placeholder mask) reads an earlier
    binding, which is checked too: the name is taken to satisfy it there. (Some binding ran first
    without reading it, or the read would fail; a parameter, a `global` or a `nonlocal` name is no
    such local and satisfies nothing.)"""
    if ctx.is_parameter(name) or ctx.declared_outer(name):
        return False  # a `global` / `nonlocal` name's first value comes from outside
    key = f"{predicate.__name__}:{name}"  # assumed for this predicate only: a mask is no selection
    if key in seen:
        return True
    values = ctx.assignments(name)
    seen = seen | {key}
    return bool(values) and all(
        _unpacked_positions(v, ctx) if isinstance(v, ast.Assign) else isinstance(v, ast.expr) and predicate(v, ctx, seen)
        for v in values)


def _unpacked_positions(assign: ast.Assign, ctx) -> bool:
    """`rows, cols = torch.where(mask)` (GLM-4 MoE's tokens per expert): each name an axis's
    positions, as long as the data selects."""
    value = assign.value
    return isinstance(value, ast.Call) and ctx.qualname(value.func) == "torch.where" and len(value.args) == 1 and not value.keywords
