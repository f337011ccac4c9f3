"""ONX603: one function applied to every row and stacked -> `torch.vmap` while torch.export traces.

kornia's per-sample augmentations stack a per-row call over the batch:

    torch.stack([_blend_one(result[i], input[i], factor[i]) for i in range(len(factor))])
    torch.stack([x.expand(*input.shape[-3:]) for x in thresholds])

torch.export unrolls the comprehension for the example's batch (the batch dim specializes:
"Constraints violated ... specialized it to be a constant"). `torch.vmap` of the same per-row
expression computes every row at once with the batch kept symbolic; eager keeps the loop, so what
the model computes outside the export is untouched. Only torch.export sees the vmap (the legacy
tracer records vmap's batching with the example's sizes: measured on torch 2.13, a Reshape that
onnxruntime fails for other batches), so the legacy exporter keeps the loop too.
"""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO
from onnxfix.patterns.control_flow.loop_parts import loop_length_source, range_count
from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

WHY_UNSAFE = ("torch.export traces `torch.vmap` of the per-row expression instead of the loop (eager keeps the loop): "
              "vmap refuses a row function that reads a value out of a tensor or branches on one, and needs every "
              "mapped tensor to have as many rows as the loop ran")
# what vmap cannot batch (a Python value out of a row) or would do once for every row at a time
UNBATCHABLE = frozenset({"item", "tolist", "numpy", "backward"})
PYTHON_VALUES = frozenset({"int", "float", "bool", "len", "print"})


def batched_map_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `torch.stack([f(rows) for i in range(len(X))])` or
    `torch.stack([f(x) for x in X])`."""
    comprehension = ctx.parent(node)
    stack = ctx.parent(comprehension)
    if not (isinstance(comprehension, (ast.ListComp, ast.GeneratorExp)) and len(comprehension.generators) == 1
            and not node.ifs and not node.is_async and isinstance(node.target, ast.Name)):
        return None, ""
    out_dims = _stacked_dim(stack, comprehension, ctx)
    if out_dims is None or ctx.compiled_by_torchscript or not _batchable(comprehension.elt):
        return None, ""
    if DYNAMO in ctx.exporters_skipping(stack):  # the eager side of a fix already made
        return None, ""
    mapped = (_rows_of_range(node, comprehension.elt, ctx) if range_count(node.iter) is not None
              else _rows_of_tensor(node, ctx))
    if mapped is None:
        return None, ""
    parameters, body, arguments = mapped
    torch, imports = ctx.torch_name()
    dims = "" if out_dims == "0" else f", out_dims={out_dims}"
    batched = f"{torch}.vmap(lambda {', '.join(parameters)}: {body}{dims})({', '.join(arguments)})"
    text = f"({batched} if {torch}.compiler.is_exporting() else {ctx.segment(stack)})"
    fix = Fix("Map the rows with `torch.vmap` while torch.export traces", (ctx.replace(stack, text),),
              safe=False, imports=imports)
    return fix, WHY_UNSAFE


def _stacked_dim(stack: ast.AST, comprehension: ast.expr, ctx: FunctionContext) -> str | None:
    """The literal dim of `torch.stack(<comprehension>[, dim])`, "0" without one, or None."""
    if not (isinstance(stack, ast.Call) and ctx.qualname(stack.func) == "torch.stack" and stack.args
            and stack.args[0] is comprehension):
        return None
    dims = [*stack.args[1:], *(k.value for k in stack.keywords if k.arg == "dim")]
    if len(dims) > 1 or len(stack.args) + len(stack.keywords) != 1 + len(dims):
        return None
    if not dims:
        return "0"
    dim = dims[0]
    negative = isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub)
    literal = dim.operand if negative else dim
    if not (isinstance(literal, ast.Constant) and type(literal.value) is int):
        return None
    return f"{'-' if negative else ''}{literal.value}"


def _batchable(element: ast.expr) -> bool:
    """No effect a loop step has that vmap would not repeat per row: no write into an argument, no
    container grown, no Python value out of a tensor, no `:=`, no `await`/`yield`."""
    for node in walk(element):
        if isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Call):
            method = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if method is not None and (in_place_method(method) or method in CONTAINER_MUTATORS or method in UNBATCHABLE):
                return False
            if isinstance(node.func, ast.Name) and node.func.id in PYTHON_VALUES:
                return False
            if any(k.arg in ("out", "inplace") for k in node.keywords):
                return False
    return True


def _rows_of_range(node: ast.comprehension, element: ast.expr, ctx: FunctionContext):
    """`f(A[i], B[i]) for i in range(len(A))`: the loop index only as a row index of tensors given
    as names or attributes, one of them the tensor whose rows the range counts."""
    index = node.target.id
    counted = loop_length_source(node.iter, ctx)
    if isinstance(range_count(node.iter), ast.Name) and counted is not None and ctx.assignments(counted):
        return None  # `n = len(x)` then `x = ...`: the count may not be the rows mapped
    if _rebinds(element, index):
        return None  # `(lambda i: a[i])(0)`: another `i` than the loop's
    rows: dict[str, list[ast.Subscript]] = {}
    for sub in walk(element):
        if (isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Name) and sub.slice.id == index
                and isinstance(sub.value, (ast.Name, ast.Attribute)) and not _mentions(sub.value, index)):
            rows.setdefault(ctx.segment(sub.value), []).append(sub)
    read_as_row = {id(sub.slice) for subs in rows.values() for sub in subs}
    if counted is None or counted not in rows or any(
            isinstance(n, ast.Name) and n.id == index and id(n) not in read_as_row for n in walk(element)):
        return None
    sources = sorted(rows, key=lambda text: min(ctx.file.source.span(s)[0] for s in rows[text]))
    if not all(ctx.tensors.is_tensor(rows[text][0].value) or text == counted for text in sources):
        return None
    names = dict(zip(sources, _fresh_names(element, len(sources))))
    replaced = {ctx.file.source.span(sub): names[text] for text, subs in rows.items() for sub in subs}
    return list(names.values()), _substituted(element, replaced, ctx), sources


def _rows_of_tensor(node: ast.comprehension, ctx: FunctionContext):
    """`f(x) for x in X` (or `X.unbind(0)`, `torch.unbind(X)`), X a tensor name or attribute: the rows of X."""
    iterable = _unbound_rows(node.iter, ctx) or node.iter
    if not (isinstance(iterable, (ast.Name, ast.Attribute)) and ctx.tensors.is_tensor(iterable)):
        return None
    element = ctx.parent(node).elt
    return [node.target.id], ctx.segment(element), [ctx.segment(iterable)]


def _rebinds(element: ast.expr, name: str) -> bool:
    """A lambda or comprehension inside the element binds ``name`` for its own body."""
    for node in walk(element):
        if isinstance(node, ast.Lambda) and any(a.arg == name for a in walk(node.args) if isinstance(a, ast.arg)):
            return True
        if isinstance(node, ast.comprehension) and _mentions(node.target, name):
            return True
    return False


def _fresh_names(element: ast.expr, count: int) -> list[str]:
    """``count`` parameter names the element does not use (a nested stack mapped in an earlier
    round already has its own `_onnx_row0`)."""
    taken = {n.id for n in walk(element) if isinstance(n, ast.Name)} | {
        a.arg for a in walk(element) if isinstance(a, ast.arg)}
    names = (f"_onnx_row{k}" for k in range(count + len(taken)))
    return [name for name in names if name not in taken][:count]


def _unbound_rows(node: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """X of `X.unbind()`, `X.unbind(0)`, `torch.unbind(X)`, `torch.unbind(X, 0)` (dim 0 by position or keyword)."""
    if not isinstance(node, ast.Call) or any(k.arg not in ("dim",) for k in node.keywords):
        return None
    dims = [*(k.value for k in node.keywords)]
    if ctx.qualname(node.func) == "torch.unbind" and node.args:
        tensor, dims = node.args[0], dims + node.args[1:]
    elif isinstance(node.func, ast.Attribute) and node.func.attr == "unbind" and ctx.qualname(node.func) is None:
        tensor, dims = node.func.value, dims + node.args
    else:
        return None
    zero = all(isinstance(d, ast.Constant) and d.value == 0 and type(d.value) is int for d in dims)
    return tensor if len(dims) <= 1 and zero else None


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(node))


def _substituted(element: ast.expr, replaced: dict[tuple[int, int], str], ctx: FunctionContext) -> str:
    """The element's text with each span in ``replaced`` replaced by its text."""
    text = ctx.file.source.text
    start, end = ctx.file.source.span(element)
    pieces, position = [], start
    for (span_start, span_end), new in sorted(replaced.items()):
        pieces.append(text[position:span_start])
        pieces.append(new)
        position = span_end
    pieces.append(text[position:end])
    return "".join(pieces)
