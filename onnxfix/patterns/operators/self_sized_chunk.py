"""ONX529: a tensor chunked into as many pieces as it has rows along the dim (`x.chunk(x.size(1),
dim=1)`, the per-step loop of PyTorch's time-sequence example) -> `x.split(1, dim=1)`.

ATen's `chunk(n, dim)` is `split(ceil(size / n), dim)`: with `n = size` that is `split(1, dim)`,
the same op on the same arguments. The legacy exporter cannot export the chunk when the count is
a traced size ("Unsupported: ONNX export of operator unsafe_chunk, unknown dimension size",
pytorch/pytorch#42785); it exports the split.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


class SelfSizedChunk(Rule):
    code = "ONX529"
    name = "chunk-by-own-size"
    summary = "A tensor chunked into one piece per row along the dim: the legacy exporter cannot count them"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)
    triggers = ("chunk",)
    doc = RuleDoc(
        what="Finds `x.chunk(x.size(d), d)` and `torch.chunk(x, x.shape[d], dim=d)`: a tensor cut into as "
        "many chunks as it has rows along `d` (a loop over time steps).",
        why="The chunk count is a size read in the trace: the legacy exporter fails with \"Unsupported: ONNX "
        "export of operator unsafe_chunk, unknown dimension size\" (pytorch/pytorch#42785).",
        example="def forward(self, x):\n    return [t * 2 for t in x.chunk(x.size(1), dim=1)]",
        use_instead="def forward(self, x):\n    return [t * 2 for t in x.split(1, dim=1)]",
        fix_safety="Safe: ATen computes `chunk(n, d)` as `split(ceil(size / n), d)`, so with `n` the size "
        "along `d` it is `split(1, d)`: the same pieces (views of the same rows). An empty dim, where "
        "`chunk(0)` raises, gives no pieces instead.",
        references=("https://github.com/pytorch/pytorch/issues/42785",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        parts = _chunk_parts(node, ctx)
        if parts is None:
            return
        tensor, count, dim = parts
        if not _size_along(count, tensor, dim, ctx):
            return
        yield ctx.report(
            self, node,
            f"`{ctx.segment(tensor)}` chunked into one piece per row along dim {dim}: the legacy exporter cannot "
            "count the pieces (unsafe_chunk, unknown dimension size); `split(1, dim)` makes the same pieces",
            fix=Fix("Split into rows", (ctx.replace(count, "1"), _renamed(node, ctx)), safe=True),
        )


def _chunk_parts(node: ast.Call, ctx: FunctionContext) -> tuple[ast.expr, ast.expr, int] | None:
    """(the tensor, the count, the dim) of `t.chunk(n, d)` / `torch.chunk(t, n, d)`, d a literal."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "chunk" and ctx.qualname(func) != "torch.chunk":
        tensor, rest = func.value, node.args
    elif ctx.qualname(func) == "torch.chunk" and node.args:
        tensor, rest = node.args[0], node.args[1:]
    else:
        return None
    dims = [k.value for k in node.keywords if k.arg == "dim"] + list(rest[1:2])
    counts = list(rest[:1])  # positional: split names it split_size_or_sections
    if len(counts) != 1 or len(dims) > 1 or len(rest) > 2 or any(k.arg != "dim" for k in node.keywords):
        return None
    dim = int_constant(dims[0]) if dims else 0
    return None if dim is None or ctx.tensors.is_tensor(tensor) is False else (tensor, counts[0], dim)


def _size_along(count: ast.expr, tensor: ast.expr, dim: int, ctx: FunctionContext) -> bool:
    """`t.size(d)`, `t.shape[d]` or `t.size()[d]` of the chunked tensor, spelled alike, directly
    or through a local bound once to it (`steps = x.size(1)`; the tensor's own name not rebound)."""
    if isinstance(count, ast.Name):
        bound = ctx.assignments(count.id)
        names = {n.id for n in walk(tensor) if isinstance(n, ast.Name)}
        return (len(bound) == 1 and isinstance(bound[0], ast.expr) and not ctx.is_parameter(count.id)
                and all(len(ctx.assignments(name)) <= 1 for name in names)
                and _size_along(bound[0], tensor, dim, ctx))
    receiver, index = None, None
    if isinstance(count, ast.Call) and isinstance(count.func, ast.Attribute) and count.func.attr == "size":
        receiver, index = count.func.value, count.args[0] if len(count.args) == 1 and not count.keywords else None
    elif isinstance(count, ast.Subscript):
        base = count.value
        if isinstance(base, ast.Attribute) and base.attr == "shape":
            receiver, index = base.value, count.slice
        elif (isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "size"
              and not base.args and not base.keywords):
            receiver, index = base.func.value, count.slice
    if receiver is None or index is None or int_constant(index) != dim:
        return False
    return ast.dump(receiver) == ast.dump(tensor)


def _renamed(node: ast.Call, ctx: FunctionContext):
    """`chunk` -> `split` in the callee (`x.chunk` or `torch.chunk`)."""
    func = node.func
    start, end = ctx.file.source.span(func)
    text = ctx.file.source.text[start:end]
    cut = text.rindex("chunk")
    return ctx.replace(func, text[:cut] + "split" + text[cut + len("chunk"):])


RULES = [SelfSizedChunk]
