"""Whether a value is computed from tensor sizes, through names and the callers' arguments: what
ONX404 asks of a `scale_factor` and ONX203 of a quotient under `float()`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext


def size_derived(node: ast.expr, ctx: "FunctionContext", depth: int = 4) -> bool:
    """A value computed from tensor sizes: a size in it, a parameter some caller binds to a size
    (`interpolate_pos_encoding(embeddings, height, width)`), or a local bound to such values
    (through tuple unpacking too: `sx, sy = float(w0) / n, float(h0) / n`)."""
    if depth == 0:
        return False
    for part in walk(node):
        if ctx.sizes.is_size(part):
            return True
        if not isinstance(part, ast.Name):
            continue
        if ctx.sizes.passed_a_size(part):
            return True
        for value in ctx.assignments(part.id):
            bound = _bound_value(value)
            if bound is not None and bound is not node and size_derived(bound, ctx, depth - 1):
                return True
    return False


def _bound_value(binding: ast.AST) -> ast.AST | None:
    """What a binding gives its name: an assignment's value, a loop's iterable (`for scale in
    scale_list:`, not the loop's body), an expression itself; None for other statements."""
    if isinstance(binding, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return binding.value
    if isinstance(binding, (ast.For, ast.AsyncFor, ast.comprehension)):
        return binding.iter
    return binding if isinstance(binding, ast.expr) else None
