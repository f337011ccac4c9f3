"""ONX610's receiver for a loop that skips a value no element has: `if counts[i] == 0: continue`
where `counts` holds per-value counts read out of the data.

DeepSeek-V3's mixture of experts (copied by its successors) counts the tokens routed to each
expert once, `counts = torch.bincount(indices.flatten(), minlength=n).tolist()`, and skips an
expert no token chose before selecting its tokens with `torch.where(indices == i)`. The count is
read out of the data: torch.export cannot decide `Eq(u0, 0)`. The count is the size of the loop
body's selection, so the skip is an empty-selection exit like `if top_x.shape[0] == 0: continue`.
Under `onnxfix export --fix` any number compared with zero before a `continue` counts, where the
run stopped on a data-dependent guard at that line (the fix is unsafe either way, and the loop
keeps it only if the exported model matches eager).

For counts the code reads only in the test, the fix skips them under both exporters: the test is
taken in eager only, and the counts are not computed while exporting (`[]`). torch.export cannot
turn a bincount, whose length is read from the data, into a list, and the legacy exporter would
record the counts of the export inputs, and with them which experts the graph skips.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

BINCOUNT = frozenset({"torch.bincount"})


def zero_count(node: ast.If, ctx: FunctionContext) -> ast.expr | None:
    """The count tested by `if <count> == 0: continue` (or `not <count>`) that is the size of the
    loop body's selection, or that the run's export stopped on; None otherwise."""
    count = _compared_with_zero(node.test)
    if count is None or not all(isinstance(s, ast.Continue) for s in node.body):
        return None
    evidence = ctx.file.evidence
    if evidence is not None and node.lineno in evidence.data_dependent and ctx.tensors.is_tensor(count) is not True:
        return count
    return count if _selection_count(count, node, ctx) else None


def _compared_with_zero(test: ast.expr) -> ast.expr | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        for value, other in ((left, right), (right, left)):
            if isinstance(other, ast.Constant) and type(other.value) is int and other.value == 0:
                return value
    return None


def _selection_count(count: ast.expr, node: ast.If, ctx: FunctionContext) -> bool:
    """`counts[i]` with `counts = torch.bincount(<x>...).tolist()` bound once, `i` the enclosing
    loop's variable, and the loop's body comparing `<x>` (flattened or not) with `i`."""
    if not (isinstance(count, ast.Subscript) and isinstance(count.value, ast.Name) and isinstance(count.slice, ast.Name)):
        return False
    loop = next((a for a in ctx.ancestors(node) if isinstance(a, (ast.For, ast.While))), None)  # what `continue` skips
    if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and loop.target.id == count.slice.id):
        return False
    counted = _counted_tensor(count.value.id, ctx)
    if counted is None:
        return False
    return any(_compares(n, counted, count.slice.id) for n in walk(loop))


def _counted_tensor(name: str, ctx: FunctionContext) -> str | None:
    """The name `x` of `name = torch.bincount(x...).tolist()` (x, x.flatten(), x.view(-1); ONX515's
    `_onnx_bincount` alike), the name's only binding in the function."""
    value = _only_value(name, ctx)
    if value is None or not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                             and value.func.attr == "tolist" and not value.args):
        return None
    call = value.func.value
    if not isinstance(call, ast.Call):
        return None
    function = ctx.qualname(call.func) in BINCOUNT or (isinstance(call.func, ast.Name) and call.func.id == "_onnx_bincount")
    if function and call.args:
        counted = call.args[0]
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "bincount" and ctx.qualname(call.func) is None:
        counted = call.func.value
    else:
        return None
    while isinstance(counted, ast.Call) and isinstance(counted.func, ast.Attribute) and counted.func.attr in (
            "flatten", "view", "reshape"):
        counted = counted.func.value  # the same values, whatever their shape
    return counted.id if isinstance(counted, ast.Name) else None


def _only_value(name: str, ctx: FunctionContext) -> ast.expr | None:
    """The value of `name = <value>`, the name's only binding in the function (no loop, unpacking
    or augmented assignment binds it)."""
    bindings = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    assign = ctx.parent(bindings[0]) if len(bindings) == 1 else None
    return assign.value if isinstance(assign, ast.Assign) and assign.targets == bindings else None


def _compares(node: ast.AST, counted: str, index: str) -> bool:
    """`counted == index` (either side)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return False
    sides = {getattr(node.left, "id", None), getattr(node.comparators[0], "id", None)}
    return sides == {counted, index}


def zero_count_fix(node: ast.If, count: ast.expr, ctx: FunctionContext) -> Fix | None:
    """For `counts[i]` of a selection's counts read only by this test: the test taken and the
    counts computed in eager only (unsafe: the ONNX model runs the loop's body for a value with no
    element too). None otherwise (ONX610's own fix then)."""
    if not _selection_count(count, node, ctx) or ctx.compiled_by_torchscript:
        return None
    name = count.value.id
    reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if reads != [count.value]:
        return None
    value = _only_value(name, ctx)
    torch_name, imports = ctx.torch_name()
    exporting = f"{torch_name}.onnx.is_in_onnx_export()"
    edits = (ctx.replace(value, f"{ctx.segment(value)} if not {exporting} else []"),
             ctx.replace(node.test, f"not {exporting} and {ctx.segment(node.test)}"))
    return Fix("Take the skip, and count, in eager only", edits, safe=False, imports=imports)
