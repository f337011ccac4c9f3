"""Where a Python float computed from sizes must stay a Python number.

`F.interpolate(x, scale_factor=(float(h0) / float(h1), ...))` (mmdetection's FPN, mmcv#690): the
resize takes Python numbers for `scale_factor`. Without `float()` the legacy tracer's sizes (tensors)
make the quotient a tensor, which `upsample_nearest2d` refuses: an export that failed in
onnxruntime would then fail in the exporter. ONX203 leaves such casts alone.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext

# keywords of torch calls that take Python numbers only, and the resizes taking one by position
NUMBER_KEYWORDS = frozenset({"scale_factor"})
POSITIONAL = {"torch.nn.functional.interpolate": 2, "torch.nn.functional.upsample": 2,
              "torch.nn.Upsample": 1, "torch.nn.UpsamplingNearest2d": 1, "torch.nn.UpsamplingBilinear2d": 1}
_CARRIERS = (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List, ast.Call, ast.IfExp, ast.Dict, ast.keyword)


def feeds_number_keyword(node: ast.expr, ctx: FunctionContext, depth: int = 3) -> str | None:
    """The keyword (`scale_factor`) the value of ``node`` reaches: in the argument itself (by name
    or by position, inside a tuple, a conditional, a `**dict(...)`), or through names assigned
    from it (a few hops); None otherwise."""
    current, parent = node, ctx.parent(node)
    while isinstance(parent, _CARRIERS):
        if isinstance(parent, ast.keyword) and parent.arg in NUMBER_KEYWORDS:
            return parent.arg
        if isinstance(parent, ast.Dict) and any(v is current for v in parent.values):
            key = parent.keys[next(i for i, v in enumerate(parent.values) if v is current)]
            if isinstance(key, ast.Constant) and key.value in NUMBER_KEYWORDS:
                return key.value  # `kw = {"scale_factor": ...}` then `F.interpolate(y, **kw)`
        if isinstance(parent, ast.Call) and current is not parent.func and _positional(parent, current, ctx):
            return "scale_factor"
        if isinstance(parent, ast.Call) and current is parent.func:
            break
        current, parent = parent, ctx.parent(parent)
    if depth <= 0 or not isinstance(parent, (ast.Assign, ast.AnnAssign)):
        return None
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    for use in (n for n in ast.walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id in names
                and isinstance(n.ctx, ast.Load)):
        found = feeds_number_keyword(use, ctx, depth - 1)
        if found:
            return found
    return None


def _positional(call: ast.Call, argument: ast.AST, ctx: FunctionContext) -> bool:
    index = POSITIONAL.get(ctx.qualname(call.func) or "")
    return index is not None and len(call.args) > index and call.args[index] is argument
