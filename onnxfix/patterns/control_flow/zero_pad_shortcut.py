"""ONX601: an `if` that skips a pad where every amount is zero, the `else` padding by those amounts.

detectron2's `ImageList.from_tensors` (one image):

    padding_size = [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]]
    if all(x == 0 for x in padding_size):  # https://github.com/pytorch/pytorch/issues/31734
        batched_imgs = tensors[0].unsqueeze(0)
    else:
        padded = F.pad(tensors[0], padding_size, value=pad_value)
        batched_imgs = padded.unsqueeze_(0)

Both exporters decide the test on the example (the legacy exporter records the branch, torch.export
specializes the sizes the amounts are computed from): exported at a size that needs no padding, the
model fails or is wrong for every size that does. A constant pad by zeros is a copy with the same
values, so the padding branch computes what the shortcut does wherever the test holds; under export
the test is made false and the padding branch runs for every size. Eager keeps its shortcut.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.size_parity import constant_pad
from onnxfix.patterns.export_checks import test_under_export
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

SIZES = ("the legacy exporter records the branch taken at export time and the dynamo exporter specializes the "
         "sizes the amounts are computed from (the exported model fails or is wrong for sizes that need another pad)")
WHY = ("; a pad by zeros is a copy, so the padding branch runs under export for every size (eager keeps its "
       "shortcut; unsafe: the analysis does not prove that the branch computes what the shortcut does where "
       "every amount is zero, beyond the pad itself)")


def zero_pad_shortcut(node: ast.If, ctx: FunctionContext) -> Fix | None:
    """The fix for `if <every pad amount is 0>: <shortcut> else: ... F.pad(x, amounts) ...`, else None."""
    if not node.orelse or not node.body:
        return None
    zeros = _zero_amounts(node.test, ctx)
    if zeros is None or not any(_pads_by(call, zeros) for call in _pad_calls(node.orelse, ctx)):
        return None
    if not all(_read_from_input(name, ctx) for name in zeros):
        return None  # amounts from the configuration: the exporters decide the same `if` for every input
    edit, imports = test_under_export(node.test, ctx, taken=False)
    return Fix("Pad under export (a pad by zeros is a copy)", (edit,), safe=False, imports=imports)


def _zero_amounts(test: ast.expr, ctx: FunctionContext) -> set[str] | None:
    """The texts of what the test requires to be zero: the list of `all(x == 0 for x in P)` or
    `not any(P)` (P itself), or the names of `a == 0 and b == 0`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call):
        call = test.operand
        if builtin_call(call, ctx, frozenset({"any"})) and len(call.args) == 1 and isinstance(call.args[0], ast.Name):
            return {call.args[0].id}
        return None
    if isinstance(test, ast.Call) and builtin_call(test, ctx, frozenset({"all"})) and len(test.args) == 1:
        return _all_zero_generator(test.args[0])
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    names = [_zero_compared(part) for part in parts]
    return set(names) if names and all(names) else None


def _all_zero_generator(generator: ast.expr) -> set[str] | None:
    """P of `(x == 0 for x in P)` (or `[...]`), P a name."""
    if not isinstance(generator, (ast.GeneratorExp, ast.ListComp)) or len(generator.generators) != 1:
        return None
    loop = generator.generators[0]
    if loop.ifs or not isinstance(loop.target, ast.Name) or not isinstance(loop.iter, ast.Name):
        return None
    if _zero_compared(generator.elt) != loop.target.id:
        return None
    return {loop.iter.id}


def _zero_compared(node: ast.expr) -> str | None:
    """n of `n == 0` / `0 == n`, n a name."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return None
    left, right = node.left, node.comparators[0]
    if int_constant(right) == 0 and isinstance(left, ast.Name):
        return left.id
    if int_constant(left) == 0 and isinstance(right, ast.Name):
        return right.id
    return None


def _read_from_input(name: str, ctx: FunctionContext) -> bool:
    """``name`` is bound, in this function, to values that read a tensor or a size."""
    values = [v.value if isinstance(v, (ast.Assign, ast.AugAssign)) else v for v in ctx.assignments(name)]
    return bool(values) and all(isinstance(v, ast.expr) and any(
        ctx.sizes.is_size(n) or ctx.tensors.is_tensor(n) for n in walk(v)) for v in values)


def _pad_calls(statements: list[ast.stmt], ctx: FunctionContext) -> list[ast.Call]:
    return [n for s in statements for n in walk(s) if isinstance(n, ast.Call) and constant_pad(n, ctx)]


def _pads_by(call: ast.Call, zeros: set[str]) -> bool:
    """A pad whose amounts are the tested list, or a tuple or list of the tested names and zeros
    (`(0, pad_w, 0, pad_h)`)."""
    amounts = call.args[1]
    if isinstance(amounts, ast.Name):
        return zeros == {amounts.id}
    if isinstance(amounts, (ast.Tuple, ast.List)) and amounts.elts:
        named = {e.id for e in amounts.elts if isinstance(e, ast.Name)}
        return named == zeros and all(isinstance(e, ast.Name) or int_constant(e) == 0 for e in amounts.elts)
    return False
