"""What the size-decided fast paths (ONX607, ONX609) share: a comparison of sizes, the resizes,
and a value seen through views of it."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext

COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
RESIZES = frozenset({"interpolate", "resize", "upsample"})


def compares_sizes(node: ast.expr, ctx: FunctionContext) -> bool:
    """A comparison with a size on either side (`height == width`, `n == self.num_positions`)."""
    return (isinstance(node, ast.Compare) and all(isinstance(op, COMPARISONS) for op in node.ops)
            and any(ctx.sizes.is_size(side) for side in (node.left, *node.comparators)))


VIEWS = frozenset({"reshape", "view", "permute", "transpose", "flatten", "unflatten", "contiguous", "float", "to",
                   "unsqueeze", "squeeze", "type_as"})


def view_of(node: ast.expr, value: ast.expr, ctx: FunctionContext, depth: int) -> bool:
    """``node`` is ``value`` or a view of it (slices, reshapes, permutes), directly or through names."""
    if ast.dump(node) == ast.dump(value):
        return True
    if depth > 4:
        return False
    if isinstance(node, ast.Subscript):
        return view_of(node.value, value, ctx, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in VIEWS:
        return view_of(node.func.value, value, ctx, depth + 1)
    if isinstance(node, ast.Name):
        # every binding a view of the value or of the name itself (`w = table[:, 1:]`, then
        # `w = w.reshape(...).permute(...)`), one of them of the value
        bound = ctx.assignments(node.id)
        if not bound or not all(isinstance(b, ast.expr) for b in bound):
            return False
        itself = ast.Name(id=node.id, ctx=ast.Load())
        return all(view_of(b, itself, ctx, depth + 1) or view_of(b, value, ctx, depth + 1) for b in bound) and any(
            view_of(b, value, ctx, depth + 1) for b in bound)
    return False
