"""The expressions the NumPy fix guards (`(<torch> if torch.onnx.is_in_onnx_export() else <NumPy>)`)
where its torch twin may round differently: eager keeps the original text."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.patterns.numpy_interop.array_flow import is_appended
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.patterns.numpy_interop.region import Region


# Expressions that cannot be a branch of `a if c else b` on their own.
_PARTS = (ast.Starred, ast.Slice, ast.FormattedValue)


def guard_roots(region: Region) -> list[ast.expr] | None:
    """The outermost expressions holding the fix's edits, each grown from an edited node
    (`.numpy()`, a NumPy call or method, a conversion back) through the NumPy values it is part
    of, up to the first value torch holds (`torch.from_numpy(...)`, `x + a.sum()`) or to its
    statement. Guarding each keeps eager on the original text: outside the guarded expressions
    the text is the same in both branches. None if an edit is not in a guardable expression."""
    anchors = [*region.sources, *(c for c, _ in [*region.calls, *region.constant_calls]),
               *(c for c, _ in [*region.methods, *region.constant_methods]), *region.sinks, *region.float_scalars,
               *region.dtype_assignments]
    roots = []
    for anchor in anchors:
        root = _guard_root(anchor, region)
        if root is None:
            return None
        roots.append(root)
    inner = {id(sub) for root in roots for sub in walk(root) if sub is not root}
    outermost = {id(root): root for root in roots if id(root) not in inner}
    return sorted(outermost.values(), key=lambda root: region.ctx.file.source.span(root)[0])


def _guard_root(node: ast.AST, region: Region) -> ast.expr | None:
    ctx = region.ctx
    while True:
        parent = ctx.parent(node)
        if parent is None or isinstance(parent, (ast.stmt, ast.Lambda)) or is_appended(node, parent, region):
            break  # the array appended to a list of arrays is the value to guard, not the `append`
        callee = isinstance(parent, ast.Call) and parent.func is node  # `a.sum` of `a.sum()`
        if isinstance(node, ast.expr) and not isinstance(node, _PARTS) and not callee and not region.is_ndarray(node):
            break
        node = parent
    guardable = isinstance(node, ast.expr) and not isinstance(node, _PARTS)
    return node if guardable and isinstance(getattr(node, "ctx", ast.Load()), ast.Load) else None

