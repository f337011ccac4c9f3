"""ONX601: a write through a bool mask under a test of one value, with the test folded into the mask.

FastSpeech2Conformer's length regulator gives every all-zero row a duration of one:

    if duration_labels.sum() == 0:                                   duration_labels[
        duration_labels[duration_labels.sum(dim=1).eq(0)] = 1    ->      duration_labels.sum(dim=1).eq(0) & (duration_labels.sum() == 0)] = 1

The test is no question about the mask (that is masked_guard.py's `if m.any(): x[m] = 0`), so dropping
the `if` would change what is written. But the test is one value (a 0-d bool tensor): `mask & test`
is the mask where it holds and selects nothing where it does not, so the one write it guards writes
the same elements with the same value, and nothing, as before. Python evaluates the value, then the
target and its index, then writes: the test is still read before the write. Neither exporter then
has a branch to follow.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.patterns.control_flow.masked_guard import draws_random, known_bool_mask, masked_write
from onnxfix.patterns.control_flow.size_parity import unconditional_body
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.precedence import BITAND, operand
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import is_elif

# methods and torch functions that reduce a whole tensor to one value when given no dim
_FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "prod", "any", "all", "count_nonzero"})


def conjoined_write(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, message suffix) for `if <test of one value>: x[mask] = <constant>` (one write, a bool
    mask, no `else`)."""
    if node.orelse or len(node.body) != 1 or ctx.compiled_by_torchscript or is_elif(node, ctx):
        return None
    condition = tensor_condition(node.test, ctx)
    if condition is None or condition.where_text != ctx.segment(node.test) or not _one_value(node.test, ctx):
        return None  # a dropped `.item()` would compare in the tensor's dtype: not the same test
    write = masked_write(node.body[0])
    if write is None or draws_random(node, ctx):
        return None
    mask, value = write
    if not (known_bool_mask(mask, ctx) and _constant(value)):
        return None  # an integer index, or values as many as the mask selects: `&` does not apply
    # `&` binds tighter than `==`: the test in parentheses, the mask too unless it binds as tightly
    folded = f"{operand(ctx.segment(mask), mask, BITAND)} & {operand(ctx.segment(node.test), node.test, BITAND + 1)}"
    edit = unconditional_body(ctx, node, [(mask, folded)])
    if edit is None:
        return None
    fix = Fix("Fold the test into the mask (`mask & test`) and drop the `if`", (edit,), safe=False)
    return fix, ("; the test is one value and the body one write of a constant through a bool mask: `mask & test` "
                 "selects the same elements where the test holds and none where it does not (unsafe: where the "
                 "test is false the target and the mask are now evaluated, which may raise, and written in place "
                 "with no element, which makes backward fail on a tensor autograd needs)")


def _one_value(test: ast.expr, ctx: FunctionContext) -> bool:
    """A 0-d test: a comparison of whole-tensor reductions and numbers, or `t.any()` / `t.all()`."""
    if isinstance(test, ast.Compare):
        return all(_reduced(side, ctx) or is_number(side) for side in (test.left, *test.comparators)) and any(
            _reduced(side, ctx) for side in (test.left, *test.comparators))
    return _reduced(test, ctx) and isinstance(test.func, ast.Attribute) and test.func.attr in ("any", "all")


def _reduced(node: ast.expr, ctx: FunctionContext) -> bool:
    """`t.sum()`, `torch.sum(t)`: a whole-tensor reduction (no dim, no keyword)."""
    if not (isinstance(node, ast.Call) and not node.keywords):
        return False
    qualname = ctx.qualname(node.func) or ""
    if qualname.startswith("torch."):
        return qualname[len("torch."):] in _FULL_REDUCTIONS and len(node.args) == 1
    return (isinstance(node.func, ast.Attribute) and node.func.attr in _FULL_REDUCTIONS and not node.args
            and ctx.tensors.is_tensor(node.func.value) is not False)


def _constant(value: ast.expr) -> bool:
    """A number or a bool: one value for every selected element, whatever their count."""
    return is_number(value) or (isinstance(value, ast.Constant) and type(value.value) is bool)
