"""ONX408: a pooling whose window is the input's own trailing sizes (a global pooling).

`F.avg_pool2d(y, kernel_size=y.size()[2:])` (HRNet's classification head, BiSeNet's attention
refinement, re-ID and ST-GCN heads) and `F.max_pool1d(x, x.size(2))` (text CNNs) pool over the
whole spatial extent with a window read from the input. Measured on torch 2.13
(tests/realworld/hrnet_cls_head_avg_pool_kernel_size.py, tests/flow_models/whole_pool.py): the
dynamo export specializes the dynamic sizes to the example's, and
the legacy exporter fails ("Failed to export a node ... Gather": the window must be constants);
HRNet's head is silently wrong under dynamo for other sizes, the flow model's dynamo export fails
on its declared dynamic sizes.
`_onnx_whole_pool(F.avg_pool2d, ...)` runs the op itself in eager and, while exporting, a mean
(a max) over those axes, which both exporters take for any size.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import BY_KEY, helper_chain, helper_source
from onnxfix.patterns.operators.base import NOT_LITERAL, DecompositionRule, argument, literal
from onnxfix.rewriter.bindings import bound_once
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix, Helper, RuleDoc

POOLS = {target: (target.rsplit(".", 1)[1].startswith("max"), int(target[-2])) for target in BY_KEY["whole_pool"].targets}
# (name, position, default) of the options the helper reduces only at their defaults (avg, max)
OPTIONS = {False: (("padding", 3, 0), ("divisor_override", 6, None)),
           True: (("padding", 3, 0), ("dilation", 4, 1), ("return_indices", 6, False))}


class WholeInputPool(DecompositionRule):
    code = "ONX408"
    name = "whole-input-pool"
    summary = "pooling window taken from the input's own sizes (`F.avg_pool2d(x, x.size()[2:])`)"
    fix_availability = "always"
    default_safety = "safe"
    extra_triggers = tuple(f"{kind}_pool{rank}d" for kind in ("avg", "max") for rank in (1, 2, 3))
    doc = RuleDoc(
        what="Finds average and max poolings (`F.avg_pool1d/2d/3d`, `F.max_pool1d/2d/3d`, "
        "`torch.max_pool2d`, ...; or one the module holds, `self.avg_pool = F.avg_pool3d if conv_3D else "
        "F.avg_pool2d`, Cellpose's CPnet, where `x.shape[2:]` is whole for either) whose window is the input's "
        "trailing sizes: `x.size()[2:]`, "
        "`x.shape[-2:]`, `(x.size(2), x.size(3))`, `x.size(2)` for a 1-d pooling, `[h, w]` after "
        "`b, c, h, w = x.size()` or `size1 = inp_size[2]` after `inp_size = x.size()` (a global pooling); "
        "or whole axes beside axes of 1 with a stride of 1 there (`(h, 1)`, h = `x.size(2)`: a "
        "pooling over the height that keeps every column).",
        why="The exporters need the window as constants. Measured on torch 2.13: the dynamo export "
        "specializes the dynamic sizes the window is read from (tests/flow_models/whole_pool.py: the "
        "export fails on its declared dynamic sizes; HRNet's head, "
        "tests/realworld/hrnet_cls_head_avg_pool_kernel_size.py: silently wrong for other sizes), and "
        "the legacy exporter fails (\"Failed to export a node ... onnx::Gather\", the window it cannot read).",
        example="def forward(self, y):\n"
        "    return F.avg_pool2d(y, kernel_size=y.size()[2:]).view(y.size(0), -1)",
        use_instead="def forward(self, y):\n"
        "    return y.mean((2, 3), keepdim=True).view(y.size(0), -1)  # or F.adaptive_avg_pool2d(y, 1)",
        fix_safety="Safe: the helper returns the op itself outside export (bit for bit). While "
        "exporting, a window equal to the input's trailing sizes with no padding, dilation, "
        "indices or divisor is a mean (a max) over those axes (the exported mean rounds as "
        "ReduceMean); anything else runs the op. Calls with a padding, dilation, "
        "`return_indices` or `divisor_override` are reported only.",
        references=BY_KEY["whole_pool"].evidence,
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        pool = _pool(node.func, ctx)
        if pool is None or any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return
        is_max, rank = pool
        source, window = argument(node, "input", 0), argument(node, "kernel_size", 1)
        if source is None or window is None:
            return
        if _whole_window(bound_once(window, ctx), source, rank, ctx):
            kind = "the input's own sizes (a global pooling)"
        elif _partial_window(bound_once(window, ctx), source, rank, node, ctx):
            kind = "whole axes of the input and 1s (a pooling over those axes)"
        else:
            return
        other = next((name for name, position, default in OPTIONS[is_max]
                      if not _default(literal(argument(node, name, position), default), default)), None)
        message = (f"pooling window `{ctx.segment(window)}`, {kind}: the dynamo "
                   "exporter specializes them to the example's and the legacy exporter cannot read them")
        if other is not None:
            yield ctx.report(self, node, message + f"; no automatic fix: `{other}` is set", fix=None)
            return
        yield ctx.report(self, node, message + "; `_onnx_whole_pool` pools over those axes while exporting",
                         fix=_wrap_fix(node, ctx))


def _pool(func: ast.expr, ctx: FunctionContext) -> tuple[bool, int | None] | None:
    """(is a max pooling, its rank) of a pooling function called: by name, or held by the module
    (`self.avg_pool = F.avg_pool3d if conv_3D else F.avg_pool2d`, Cellpose's CPnet), its rank None
    where the choices differ in it."""
    pool = POOLS.get(ctx.qualname(func) or "")
    held = ctx.held_functions(func) if pool is None else None
    if held is None:
        return pool
    pools = [POOLS.get(name) for name in held]
    if None in pools or len({is_max for is_max, _ in pools}) != 1:
        return None
    ranks = {rank for _, rank in pools}
    return pools[0][0], ranks.pop() if len(ranks) == 1 else None


def _whole_window(window: ast.expr, source: ast.expr, rank: int | None, ctx: FunctionContext) -> bool:
    """`x.size()[2:]` / `x.shape[-2:]` (x the pooled input), a tuple of `x.size(i)` /
    `x.shape[i]` over the last ``rank`` axes, or (rank 1) one of them alone; an item may be a name
    unpacked once from the input's sizes (smp's SE block: `b, c, h, w = inputs.size()`, `[h, w]`)."""
    if isinstance(window, ast.Call) and isinstance(window.func, ast.Name) and window.func.id in ("tuple", "list") \
            and len(window.args) == 1 and not window.keywords:
        window = window.args[0]  # `tuple(x.shape[2:])`
    if isinstance(window, ast.Subscript) and isinstance(window.slice, ast.Slice):
        lower, upper, bound = window.slice.lower, window.slice.upper, _size_source(window.value)
        start = int_constant(lower) if lower is not None else None
        if rank is None:  # a choice of poolings of several ranks: `x.shape[2:]`, whole for each
            return bound is not None and _same(bound, source) and window.slice.step is None and start == 2 and upper is None
        whole = upper is None or (start is not None and start >= 0 and int_constant(upper) == start + rank)
        return (bound is not None and _same(bound, source) and window.slice.step is None
                and start in (2, -rank) and whole)
    if rank is None:
        return False
    items = window.elts if isinstance(window, (ast.Tuple, ast.List)) else [window] if rank == 1 else []
    items = [_sizes_item(item, ctx) for item in items]
    axes = [_size_axis(item, source) if _size_axis(item, source) is not None else _unpacked_axis(item, source, ctx)
            for item in items]
    return len(axes) == rank and (axes == list(range(2, 2 + rank)) or axes == list(range(-rank, 0)))


def _sizes_item(item: ast.expr, ctx: FunctionContext) -> ast.expr:
    """`size1` of `inp_size = x.size(); size1 = inp_size[2]` (pytorch#35743's custom adaptive max
    pool) read as `x.size()[2]`, each name bound once; else the item."""
    value = bound_once(item, ctx) if isinstance(item, ast.Name) else item
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        sizes = bound_once(value.value, ctx)
        if sizes is not value.value and _size_source(sizes) is not None and not _rebound_after(sizes, ctx):
            return ast.Subscript(value=sizes, slice=value.slice, ctx=ast.Load())
    return value if value is not item and _size_axis_of_any(value) else item


def _rebound_after(sizes: ast.expr, ctx: FunctionContext) -> bool:
    """The tensor whose sizes these are (`x` of `inp_size = x.size()`) is bound again on a later
    line (`x = F.pad(x, ...)` before the pooling: its sizes are no longer these)."""
    tensor = _size_source(sizes)
    return isinstance(tensor, ast.Name) and any(
        getattr(b, "lineno", 0) > sizes.lineno for b in ctx.assignments(tensor.id))


def _size_axis_of_any(node: ast.expr) -> bool:
    return isinstance(node, ast.Subscript) and _size_source(node.value) is not None or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and len(node.args) == 1)


def _unpacked_axis(item: ast.expr, source: ast.expr, ctx: FunctionContext) -> int | None:
    """i of a name bound once, as the i-th of the names `b, c, h, w = x.size()` (or `x.shape`)
    unpacks, x the pooled input (a name not rebound after the unpacking)."""
    if not isinstance(item, ast.Name) or ctx.is_parameter(item.id):
        return None
    bindings = ctx.assignments(item.id)
    if len(bindings) != 1 or not isinstance(bindings[0], ast.Assign) or len(bindings[0].targets) != 1:
        return None
    target, value = bindings[0].targets[0], bindings[0].value
    if not isinstance(target, ast.Tuple) or any(not isinstance(e, ast.Name) for e in target.elts):
        return None
    bound = _size_source(value)
    if bound is None or not _same(bound, source) or not isinstance(source, ast.Name):
        return None
    if any(getattr(b, "lineno", None) is None or b.lineno >= bindings[0].lineno for b in ctx.assignments(source.id)):
        return None
    return next(i for i, e in enumerate(target.elts) if e.id == item.id)


def _partial_window(window: ast.expr, source: ast.expr, rank: int, node: ast.Call, ctx: FunctionContext) -> bool:
    """A window of whole axes and literal 1s (`(x.size(2), 1)`: SAR's max over the height, a
    column per width), each item possibly a name bound once to it, with a stride of 1 (or the
    default: the window) on the axes of 1: the pooling then reduces the whole axes and keeps the others."""
    if not isinstance(window, (ast.Tuple, ast.List)) or len(window.elts) != rank:
        return False
    items = [bound_once(item, ctx) for item in window.elts]
    whole = [_size_axis(item, source) in (2 + i, i - rank) for i, item in enumerate(items)]
    ones = [literal(item) == 1 and not whole[i] for i, item in enumerate(items)]
    if not any(whole) or not all(w or o for w, o in zip(whole, ones)):
        return False
    stride = literal(argument(node, "stride", 2), None)
    if stride is None or stride == []:
        return True
    strides = stride if isinstance(stride, (tuple, list)) else (stride,) * rank
    return len(strides) == rank and all(whole[i] or strides[i] == 1 for i in range(rank))


def _size_source(node: ast.expr) -> ast.expr | None:
    """x of `x.shape` or `x.size()`."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and not node.args and not node.keywords):
        return node.func.value
    return None


def _size_axis(node: ast.expr, source: ast.expr) -> int | None:
    """i of `x.shape[i]` / `x.size()[i]` / `x.size(i)` with x the pooled input."""
    if isinstance(node, ast.Subscript) and _size_source(node.value) is not None:  # x.shape[i], x.size()[i]
        bound, index = _size_source(node.value), node.slice
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
          and len(node.args) == 1 and not node.keywords):
        bound, index = node.func.value, node.args[0]
    else:
        return None
    return int_constant(index) if _same(bound, source) else None


def _same(a: ast.expr, b: ast.expr) -> bool:
    return ast.dump(a) == ast.dump(b)


def _default(value, default) -> bool:
    """The literal default (or None), also for each element of a tuple (`padding=(0, 0)`)."""
    if value is None:
        return True
    values = value if isinstance(value, (tuple, list)) else (value,)
    return value is not NOT_LITERAL and all(type(v) is type(default) and v == default for v in values)


def _wrap_fix(node: ast.Call, ctx: FunctionContext) -> Fix:
    """`F.avg_pool2d(y, ...)` -> `_onnx_whole_pool(F.avg_pool2d, y, ...)`."""
    helper = BY_KEY["whole_pool"].helper
    source = ctx.file.source
    func_end = source.span(node.func)[1]
    paren = source.text.index("(", func_end)
    edits = (Edit(paren + 1, paren + 1, f"{ctx.segment(node.func)}, "), ctx.replace(node.func, helper))
    helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain("whole_pool"))
    return Fix(f"Rewrite to `{helper}({ctx.segment(node.func)}, ...)` (helper added to the file)", edits, True,
               imports=("torch",), helpers=helpers)


RULES = [WholeInputPool]
