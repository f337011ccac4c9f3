"""ONX610's receiver for a loop that skips a value no element has: `if counts[i] == 0: continue`
where `counts` holds per-value counts read out of the data.

DeepSeek-V3's mixture of experts (copied by its successors) counts the tokens routed to each
expert once, `counts = torch.bincount(indices.flatten(), minlength=n).tolist()`, and skips an
expert no token chose before selecting its tokens with `torch.where(indices == i)`. The count is
read out of the data: torch.export cannot decide `Eq(u0, 0)`. The count is the size of the loop
body's selection, so the skip is an empty-selection exit like `if top_x.shape[0] == 0: continue`.
The loop reads the counts by index (`for i in range(n): if counts[i] == 0`) or by value
(`for i, count in enumerate(counts): if count == 0`, reported without a fix: that loop iterates
the counts themselves, as many as the data's largest value says).
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

from onnxfix.decompositions import BY_KEY
from onnxfix.patterns.control_flow.empty_exit import zero_tested
from onnxfix.rewriter.bindings import only_value
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import reads_of_single_binding
from onnxfix.rewriter.tree_walk import walk

BINCOUNT = frozenset({"torch.bincount"})
# ONX515's fix of a bincount: the counts it computes are the same
BINCOUNT_HELPER = BY_KEY["bincount"].helper


def zero_count(node: ast.If, ctx: FunctionContext) -> ast.expr | None:
    """The count tested by `if <count> == 0: continue` (or `not <count>`) that is the size of the
    loop body's selection, or that the run's export stopped on; None otherwise."""
    count = zero_tested(node.test)
    if count is None or not all(isinstance(s, ast.Continue) for s in node.body):
        return None
    evidence = ctx.file.evidence
    if evidence is not None and node.lineno in evidence.data_dependent and ctx.tensors.is_tensor(count) is not True:
        return count
    return count if _selected_counts(count, node, ctx) is not None else None


def _selected_counts(count: ast.expr, node: ast.If, ctx: FunctionContext) -> ast.Name | None:
    """The name `counts` bound once to `torch.bincount(<x>...).tolist()` where ``count`` is the
    enclosing loop's count of value `i` (`counts[i]` in `for i in ...`, or `count` in
    `for i, count in enumerate(counts)`) and the loop's body compares `<x>` (flattened or not)
    with `i`; None otherwise."""
    loop = next((a for a in ctx.ancestors(node) if isinstance(a, (ast.For, ast.While))), None)  # what `continue` skips
    if not isinstance(loop, ast.For):
        return None
    found = _indexed_count(count, loop) or _enumerated_count(count, loop)
    if found is None:
        return None
    counts, index = found
    counted = _counted_tensor(counts.id, ctx)
    if counted is None or not any(_compares(n, counted, index) for n in walk(loop)):
        return None
    return counts


def enumerated_count(count: ast.expr, node: ast.If, ctx: FunctionContext) -> bool:
    """``count`` is the value `for i, count in enumerate(counts)` gives the loop around ``node``."""
    loop = next((a for a in ctx.ancestors(node) if isinstance(a, (ast.For, ast.While))), None)
    return isinstance(loop, ast.For) and _enumerated_count(count, loop) is not None


def _indexed_count(count: ast.expr, loop: ast.For) -> tuple[ast.Name, str] | None:
    """`counts[i]` in `for i in ...`: (counts, "i")."""
    if not (isinstance(count, ast.Subscript) and isinstance(count.value, ast.Name) and isinstance(count.slice, ast.Name)):
        return None
    loops_over_index = isinstance(loop.target, ast.Name) and loop.target.id == count.slice.id
    return (count.value, count.slice.id) if loops_over_index else None


def _enumerated_count(count: ast.expr, loop: ast.For) -> tuple[ast.Name, str] | None:
    """`count` in `for i, count in enumerate(counts)`: (counts, "i")."""
    target, iterated = loop.target, loop.iter
    if not (isinstance(count, ast.Name) and isinstance(target, ast.Tuple) and len(target.elts) == 2
            and all(isinstance(e, ast.Name) for e in target.elts) and target.elts[1].id == count.id):
        return None
    if not (isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "enumerate"
            and len(iterated.args) == 1 and not iterated.keywords and isinstance(iterated.args[0], ast.Name)):
        return None
    return iterated.args[0], target.elts[0].id


def _counted_tensor(name: str, ctx: FunctionContext) -> str | None:
    """The name `x` of `name = torch.bincount(x...).tolist()` (x, x.flatten(), x.view(-1); ONX515's
    helper alike), the name's only binding in the function."""
    value = only_value(name, ctx)
    if value is None or not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                             and value.func.attr == "tolist" and not value.args):
        return None
    call = value.func.value
    if not isinstance(call, ast.Call):
        return None
    function = ctx.qualname(call.func) in BINCOUNT or (isinstance(call.func, ast.Name) and call.func.id == BINCOUNT_HELPER)
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


def _compares(node: ast.AST, counted: str, index: str) -> bool:
    """`counted == index` (either side)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return False
    sides = {getattr(node.left, "id", None), getattr(node.comparators[0], "id", None)}
    return sides == {counted, index}


def zero_count_fix(node: ast.If, count: ast.expr, ctx: FunctionContext) -> Fix | None:
    """For a selection's counts read only by this test (`counts[i]`): the test taken and the
    counts computed in eager only (unsafe: the ONNX model runs the loop's body for a value with no
    element too). None otherwise: ONX610's own fix then, or none for `for i, count in
    enumerate(counts)`, which iterates the counts themselves (empty_guard.py says why)."""
    counts = _selected_counts(count, node, ctx) if isinstance(count, ast.Subscript) else None
    if counts is None or ctx.compiled_by_torchscript or reads_of_single_binding(counts.id, ctx) != [counts]:
        return None
    value = only_value(counts.id, ctx)
    torch_name, imports = ctx.torch_name()
    exporting = f"{torch_name}.onnx.is_in_onnx_export()"
    edits = (ctx.replace(value, f"{ctx.segment(value)} if not {exporting} else []"),
             ctx.replace(node.test, f"not {exporting} and {ctx.segment(node.test)}"))
    return Fix("Take the skip, and count, in eager only", edits, safe=False, imports=imports)
