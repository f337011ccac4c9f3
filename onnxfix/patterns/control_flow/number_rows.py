"""ONX603: a list of one number per row, built by a comprehension over a size, read only as tensor data.

    valid_ratios = [1.0 for _ in range(feat.size(0))]        # MMOCR's SATRN, NRTR
    ... torch.as_tensor(valid_ratios, dtype=torch.float64, device=x.device)

Both exporters unroll the comprehension and keep the example's batch. `torch.full((n,), 1.0,
dtype=torch.float64)` holds the Python float exactly (int64 for an int), and `torch.as_tensor` with
an explicit dtype converts it as it converts the list's numbers: the same tensor. Only where every
read of the name is the data of such an `as_tensor` (ONX603's row-bound fix, length_fill_loop.py,
writes that form).
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import range_count
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk


def number_rows_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `name = [c for _ in range(n)]`, c a number literal."""
    listcomp = ctx.parent(node)
    assign = ctx.parent(listcomp)
    count = range_count(node.iter)
    if not (isinstance(listcomp, ast.ListComp) and len(listcomp.generators) == 1 and not node.ifs
            and isinstance(assign, ast.Assign) and assign.value is listcomp and len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name) and count is not None):
        return None, ""
    element = listcomp.elt
    if not (isinstance(element, ast.Constant) and type(element.value) in (int, float)):
        return None, ""
    name = assign.targets[0].id
    reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not reads or not all(_typed_tensor_data(read, ctx) for read in reads):
        return None, ""
    torch, imports = ctx.torch_name()
    dtype = "float64" if isinstance(element.value, float) else "int64"
    text = f"{torch}.full(({ctx.segment(count)},), {ctx.segment(element)}, dtype={torch}.{dtype})"
    fix = Fix("Build the rows' numbers as a tensor of the size", (ctx.replace(listcomp, text),), safe=True,
              imports=imports)
    return fix, ""


def _typed_tensor_data(read: ast.Name, ctx: FunctionContext) -> bool:
    """`torch.as_tensor(read, dtype=...)`: converted to a named dtype, as a list's numbers are."""
    call = ctx.parent(read)
    return (isinstance(call, ast.Call) and ctx.qualname(call.func) == "torch.as_tensor" and call.args
            and call.args[0] is read and any(k.arg == "dtype" for k in call.keywords))
