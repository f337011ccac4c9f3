"""Where a Python float computed from sizes must stay a Python number.

`F.interpolate(x, scale_factor=(float(h0) / float(h1), ...))` (mmdetection's FPN, mmcv#690): the
resize takes Python numbers for `scale_factor`. Without `float()` the legacy tracer's sizes (tensors)
make the quotient a tensor, which `upsample_nearest2d` refuses: an export that failed in
onnxruntime would then fail in the exporter. ONX203 leaves such casts alone.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext

# keywords of torch calls that take Python numbers only
NUMBER_KEYWORDS = frozenset({"scale_factor"})
_CARRIERS = (ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List, ast.Call)


def feeds_number_keyword(node: ast.expr, ctx: FunctionContext) -> str | None:
    """The keyword (`scale_factor`) the value of ``node`` reaches: as part of the argument itself, or
    of a name assigned once from it and passed there; None otherwise."""
    current, parent = node, ctx.parent(node)
    while isinstance(parent, _CARRIERS) and not (isinstance(parent, ast.Call) and current is parent.func):
        current, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.keyword) and parent.arg in NUMBER_KEYWORDS:
        return parent.arg
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        for call in (n for n in ast.walk(ctx.fn.node) if isinstance(n, ast.Call)):
            for keyword in call.keywords:
                if keyword.arg in NUMBER_KEYWORDS and any(
                        isinstance(n, ast.Name) and n.id == name for n in ast.walk(keyword.value)):
                    return keyword.arg
    return None
