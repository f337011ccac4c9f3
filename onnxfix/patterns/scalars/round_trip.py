"""ONX202's fix: `.tolist()` of a 1-D tensor built from sizes gives those sizes back, so the list
of the sizes replaces it (also ONX205's stacked form of such a tensor)."""

from __future__ import annotations

import ast

from onnxfix.patterns.scalars.builders import TENSOR_BUILDERS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import BITOR, operand
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import assigned_just_before, enclosing_statement, statement_removal


INTEGER_DTYPES = frozenset({"torch.long", "torch.int64"})
CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


def sizes_round_trip(node: ast.Call, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """`t.tolist()` of a 1-D tensor built from sizes, directly or through a name assigned in the
    statement before and read only there (TAPAS: `out_shape = torch.cat([torch.as_tensor([b *
    k]), torch.as_tensor(vector_shape, dtype=torch.long)])` then `torch.zeros(out_shape.tolist())`):
    the list of those sizes, `[b * k, *vector_shape]`, and the name's statement goes. The tensor
    holds each size as an int64 and `.tolist()` gives it back, so the list is the same when every
    element is an int (a torch.Size item, `len`, integer arithmetic of those: safe; a shape in a
    `torch.cat` needs an int64 `dtype=`, as an empty shape builds a float tensor and the
    concatenation is promoted to float). An element not known to be an int is unsafe: a float goes through float32 (or is truncated by an integer `dtype=`) on
    the way. Returns the fix and the message's unsafe note."""
    receiver = node.func.value
    built, assign = receiver, None
    if isinstance(receiver, ast.Name):
        assign = assigned_just_before(receiver.id, enclosing_statement(node, ctx), ctx)
        if assign is None:
            return None
        built = assign.value
    items = _size_items(built, ctx)
    if not items:
        return None
    edits = [ctx.replace(node, "[" + ", ".join(text for text, _ in items) + "]")]
    if assign is not None:
        removal = statement_removal(assign, ctx)
        if removal is None:
            return None
        edits.append(removal)
    unproven = next((text for text, is_int in items if not is_int), None)
    note = ""
    if unproven and unproven.startswith("*"):
        note = f" (unsafe: without `dtype=torch.long` an empty `{unproven[1:]}` makes the concatenation float)"
    elif unproven:
        note = f" (unsafe: `{unproven}` is not known to be an int; a float comes back from the tensor rounded)"
    return Fix("Use the sizes: the list they were put in", tuple(edits), safe=unproven is None), note


def _size_items(node: ast.expr, ctx: FunctionContext) -> list[tuple[str, bool]] | None:
    """(text, known int) for each element of a 1-D integer tensor built from sizes: `torch.cat`
    (dim 0) of builders of lists and shapes, `torch.stack` of builders of single sizes (ONX205's
    fix), or one builder."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    qualname = ctx.qualname(node.func)
    if qualname in CONCATENATIONS or qualname == "torch.stack":
        dims = [*node.args[1:], *(k.value for k in node.keywords if k.arg == "dim")]
        if len(node.args) + len(node.keywords) - 1 != len(dims) or not all(
            isinstance(d, ast.Constant) and d.value == 0 for d in dims
        ):
            return None
        parts = node.args[0]
        if not isinstance(parts, (ast.List, ast.Tuple)) or not parts.elts:
            return None
        items = []
        for part in parts.elts:
            if qualname in CONCATENATIONS and isinstance(part, ast.Call) and ctx.qualname(part.func) == "torch.stack":
                found = _size_items(part, ctx)  # ONX205's fix of one list inside the concatenation
            else:
                found = _built_items(part, ctx, scalar=qualname == "torch.stack", alone=False)
            if found is None:
                return None
            items.extend(found)
        return items
    return _built_items(node, ctx, scalar=False, alone=True)


def _built_items(node: ast.expr, ctx: FunctionContext, scalar: bool, alone: bool) -> list[tuple[str, bool]] | None:
    """`torch.tensor([a, b])` / `torch.as_tensor(x.shape[2:], dtype=torch.long)` (one element for
    `torch.tensor(a)` when ``scalar``), no dtype but an int64 one, no other keyword but device.
    An empty shape builds a float tensor without `dtype=`: harmless ``alone``, but `torch.cat`
    then promotes the other parts to float."""
    if not (isinstance(node, ast.Call) and ctx.qualname(node.func) in TENSOR_BUILDERS and len(node.args) == 1):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    if set(keywords) - {"dtype", "device"}:
        return None
    typed = "dtype" in keywords
    if typed and ctx.qualname(keywords["dtype"]) not in INTEGER_DTYPES:
        return None
    data = node.args[0]
    if scalar:
        if isinstance(data, (ast.List, ast.Tuple, ast.Starred)) or ctx.is_shape_sequence(data):
            return None
        return [(_element(data, ctx), ctx.ints.is_int(data))]
    if isinstance(data, (ast.List, ast.Tuple)):
        if not data.elts or any(isinstance(e, ast.Starred) for e in data.elts):
            return None
        return [(_element(e, ctx), ctx.ints.is_int(e)) for e in data.elts]
    if ctx.is_shape_sequence(data):
        return [("*" + operand(ctx.segment(data), data, BITOR), typed or alone)]
    return None


def _element(node: ast.expr, ctx: FunctionContext) -> str:
    text = ctx.segment(node)
    return f"({text})" if isinstance(node, ast.NamedExpr) else text
