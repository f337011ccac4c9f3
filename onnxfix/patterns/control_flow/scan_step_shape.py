"""ONX603's scan rewrite: whether every step of a loop yields values of one shape, as a torch scan
needs (a step's value read as a size, a data-sized op, a slice cut at a per-step length that is not
reduced at once: each step would have a shape of its own)."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.scan_parts import ScanPlan
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.tree_walk import walk


SIZE_TAKERS = frozenset({
    "expand", "repeat", "view", "reshape", "new_zeros", "new_ones", "new_full", "new_empty", "zeros", "ones",
    "full", "empty", "arange", "randn", "rand", "narrow", "int", "float", "item", "tolist", "range",
})


# ops whose output size is data-dependent: every step would have its own shape
DATA_SIZED = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "repeat_interleave"})


def step_value_as_size(node: ast.For, scan: ScanPlan, assigned: list[str], ctx: FunctionContext) -> bool:
    """A stepped value read as a size or a Python number (`x[i].expand(n[i], -1)`, `int(n[i])`),
    or bounding a slice that the step does not reduce at once (`outs.append(x[i, :n[i]])`): each
    step's output would have its own shape, which a scan cannot stack."""
    for sub in walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, (ast.Attribute, ast.Name)) and (
                getattr(sub.func, "attr", None) or getattr(sub.func, "id", None)) in DATA_SIZED:
            return True
    if not _stepped_slices_reduced(node, scan, assigned, ctx):
        return True
    for sub in walk(node):
        if not isinstance(sub, ast.Call):
            continue
        name = sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id if isinstance(sub.func, ast.Name) else ""
        if name not in SIZE_TAKERS:
            continue
        arguments = [*sub.args, *(k.value for k in sub.keywords)]
        if name in ("item", "tolist") and isinstance(sub.func, ast.Attribute):
            arguments.append(sub.func.value)
        if any(id(n) in scan.replaced for argument in arguments for n in walk(argument)):
            return True
    return False


REDUCTIONS = frozenset({"mean", "sum", "std", "var", "amax", "amin", "norm", "prod", "logsumexp", "nansum",
                        "nanmean", "count_nonzero", "any", "all"})


def _stepped_slices_reduced(node: ast.For, scan: ScanPlan, assigned: list[str], ctx: FunctionContext) -> bool:
    """Every slice bounded by a stepped value or a name the body binds (`x[i, :, :n[i]]`, `x[i, :k]`)
    is reduced right away over all its dims or over the cut one (`.mean(dim=1)` where the cut is
    the result's dim 1): a step's output keeps one shape whatever the length."""
    temporaries = set(assigned)
    for sub in walk(ast.Module(body=node.body, type_ignores=[])):
        if not isinstance(sub, ast.Subscript) or not isinstance(sub.slice, (ast.Tuple, ast.Slice)):
            continue
        elements = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        cut = [k for k, e in enumerate(elements) if isinstance(e, ast.Slice) and any(
            id(n) in scan.replaced or isinstance(n, ast.Name) and n.id in temporaries
            for bound in (e.lower, e.upper, e.step) if bound is not None for n in walk(bound))]
        if cut and not _reduced_over(sub, elements, cut, scan, ctx):
            return False
    return True


def _reduced_over(sub: ast.Subscript, elements: list[ast.expr], cut: list[int], scan: ScanPlan,
                  ctx: FunctionContext) -> bool:
    """`sub.<reduction>()` over every dim, or over the result dim the one cut element gives."""
    parent, call = ctx.parent(sub), ctx.parent(ctx.parent(sub))
    if not (isinstance(parent, ast.Attribute) and parent.attr in REDUCTIONS and isinstance(call, ast.Call)
            and call.func is parent):
        return False
    dims = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "dim")]
    if not dims:
        return True
    if len(cut) != 1 or any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elements[:cut[0]]):
        return False
    # the result's dims before the cut one: the kept elements before it (an int drops its dim, the
    # loop's index is the step's own, None adds one)
    before = sum(1 for e in elements[:cut[0]] if isinstance(e, ast.Slice)
                 or isinstance(e, ast.Constant) and e.value is None)
    wanted = dims[0].elts if isinstance(dims[0], ast.Tuple) else [dims[0]]
    return any(int_constant(d) == before for d in wanted)
