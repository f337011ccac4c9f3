"""A Python number taken out of a tensor as one bound of `clamp` / `clip` beside a number bound:

    torch.clamp(log_spec, min=log_spec.max().item() - self.top_db, max=np.inf)   # torchlibrosa
    x.clamp(s.item(), 3.0)

The legacy exporter bakes the `.item()` in. The tensor cannot simply take the number's place: a
tensor bound beside a number one is refused while either exporter traces, and in eager where the
tensor requires grad ("clamp() received an invalid combination of arguments"). Clamping by one
bound at a time takes each in its own overload, in the order clamp applies them: clamp(x, lo, hi)
is min(max(x, lo), hi) in ATen, the same as `x.clamp(min=lo).clamp(max=hi)`, NaN and lo > hi
included.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix

CLAMPS = frozenset({"clamp", "clip", "clamp_", "clip_"})
_FUNCTIONS = frozenset({"torch.clamp", "torch.clip"})
CLAMP_UNSAFE = ("the clamp runs as two (the tensor bound, then the number one), and a bound computed from the "
                "tensor computes in its dtype where Python computed in double")


def clamp_bounds(call: ast.Call, ctx: FunctionContext, *, splittable: bool = True,
                 ) -> tuple[ast.expr | None, ast.expr | None] | None:
    """(min, max) arguments of a clamp call, None for an absent or literal-None bound; None where
    ``call`` is no clamp, or (``splittable``) passes what the split cannot carry (`out=`, *args)."""
    method = isinstance(call.func, ast.Attribute) and ctx.qualname(call.func) is None and call.func.attr in CLAMPS
    if not (method or ctx.qualname(call.func) in _FUNCTIONS):
        return None
    positional = call.args if method else call.args[1:]
    if len(positional) > 2 or any(isinstance(a, ast.Starred) for a in call.args) or (not method and not call.args):
        return None
    named = {k.arg: k.value for k in call.keywords}
    if (splittable and set(named) - {"min", "max"}) or (positional and "min" in named) or (len(positional) > 1 and "max" in named):
        return None
    low = positional[0] if positional else named.get("min")
    high = positional[1] if len(positional) > 1 else named.get("max")
    return _bound(low), _bound(high)


def _bound(node: ast.expr | None) -> ast.expr | None:
    return None if node is None or (isinstance(node, ast.Constant) and node.value is None) else node


def beside_a_number_bound(call: ast.Call, node: ast.expr, ctx: FunctionContext) -> bool:
    """``node`` is one bound of a clamp and the other a value not known to be a tensor."""
    bounds = clamp_bounds(call, ctx, splittable=False)
    if bounds is None or not any(b is node for b in bounds):
        return False
    other = bounds[1] if bounds[0] is node else bounds[0]
    return other is not None and not ctx.tensors.is_tensor(other) and not _item_of(other)


def _item_of(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item"
            and not node.args)


def bound_of_clamp(node: ast.expr, ctx: FunctionContext) -> ast.Call | None:
    """The clamp call ``node`` is a bound of (as an argument or keyword), or None."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.keyword):
        parent = ctx.parent(parent)
    return parent if isinstance(parent, ast.Call) and parent.func is not node else None


def split_clamp(item: ast.Call, ctx: FunctionContext) -> Edit | None:
    """The clamp around ``item`` (a `.item()` in one of its bounds) clamped by one bound at a time,
    with the `.item()` dropped: `torch.clamp(x, min=t.max() - d).clamp(max=np.inf)`."""
    bound = item
    while True:
        call = bound_of_clamp(bound, ctx)
        if call is not None and clamp_bounds(call, ctx) is not None and any(b is bound for b in clamp_bounds(call, ctx)):
            break
        parent = ctx.parent(bound)
        if not isinstance(parent, ast.BinOp):
            return None
        bound = parent
    low, high = clamp_bounds(call, ctx)
    if low is None or high is None:
        return None
    name = call.func.attr if isinstance(call.func, ast.Attribute) else "clamp"
    name = name if name in CLAMPS else "clamp"
    texts = [_without_item(b, item, ctx) for b in (low, high)]
    method = isinstance(call.func, ast.Attribute) and ctx.qualname(call.func) is None
    first = (f"{ctx.segment(call.func)}(min={texts[0]})" if method
             else f"{ctx.segment(call.func)}({ctx.segment(call.args[0])}, min={texts[0]})")
    return ctx.replace(call, f"{first}.{name}(max={texts[1]})")


def _without_item(bound: ast.expr, item: ast.Call, ctx: FunctionContext) -> str:
    source = ctx.file.source
    start, end = source.span(bound)
    if not (start <= source.span(item)[0] and source.span(item)[1] <= end):
        return source.text[start:end]
    cut_start, cut_end = ctx.dot_span(item.func, item)
    return source.text[start:cut_start] + source.text[cut_end:end]


def clamp_bound_fix(item: ast.Call, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """ONX201's fix and message for `.item()` in one bound of a clamp beside a number bound."""
    message = ("`.item()` in a bound of a clamp beside a number bound: the legacy exporter bakes the value in as a "
               "constant; keep it a tensor and clamp by one bound at a time")
    split = split_clamp(item, ctx)
    if split is None:
        return None, message + " (no fix: the clamp's arguments are not one tensor, `min` and `max`)"
    return Fix("Keep the value a 0-d tensor; clamp by one bound at a time", (split,), safe=False), \
        message + f" (unsafe: {CLAMP_UNSAFE})"
