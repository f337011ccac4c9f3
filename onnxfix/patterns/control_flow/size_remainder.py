"""ONX606: a branch on whether a size divides evenly, whose arms differ only by that remainder.

TensorFlow-style "SAME" padding (transformers' MobileNet, EfficientNet and MobileViT ports, timm's
`pad_same`, TF-converted detectors) computes the pad from the input size's remainder:

    if in_height % stride_height == 0:
        pad_along_height = max(kernel_height - stride_height, 0)
    else:
        pad_along_height = max(kernel_height - (in_height % stride_height), 0)

With a dynamic height, torch.export guards on the remainder (`Eq(Mod(h, 2), 0)`): the exported
model is right only for sizes with the export-time remainder, at every stride, and the legacy
exporter records the branch taken. Both arms are one formula: the remainder counted from 1,
`(in_height - 1) % stride_height + 1`, is the stride where the size divides and the remainder
elsewhere. One assignment, no branch, the pad computed in the graph.
"""

from __future__ import annotations

import ast
import copy

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import comments_outside, replace_statements, single_name_assignment


def remainder_test(test: ast.expr) -> tuple[ast.expr, ast.expr, bool] | None:
    """(A, B, divides_in_body) of `A % B == 0` / `A % B != 0` / `not A % B`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mod):
            return inner.left, inner.right, True
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant) and left.value == 0:
        left, right = right, left
    if not (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and isinstance(right, ast.Constant)
            and right.value == 0 and type(right.value) is int):
        return None
    return left.left, left.right, isinstance(test.ops[0], ast.Eq)


class _Replace(ast.NodeTransformer):
    def __init__(self, old: ast.expr, new: ast.expr):
        self.old, self.new = ast.dump(old), new

    def visit(self, node):
        if isinstance(node, ast.expr) and ast.dump(node) == self.old:
            return copy.deepcopy(self.new)
        return super().visit(node)


def same_but_remainder(divides: ast.expr, rest: ast.expr, a: ast.expr, b: ast.expr) -> bool:
    """``rest`` is ``divides`` with ``B`` replaced by ``A % B`` (the arms of one formula)."""
    remainder = ast.BinOp(a, ast.Mod(), b)
    swapped = _Replace(b, remainder).visit(copy.deepcopy(divides))
    strip = lambda node: ast.dump(node, annotate_fields=False, include_attributes=False)
    return strip(swapped) == strip(rest) and strip(divides) != strip(rest)


def remainder_branch(node: ast.If, ctx: FunctionContext) -> tuple[ast.expr, ast.expr, str, ast.Assign] | None:
    """(A, B, the name, the divides arm) of `if A % B == 0: V = f(B) else: V = f(A % B)` with A a size."""
    parts = remainder_test(node.test)
    if parts is None or len(node.body) != 1 or len(node.orelse) != 1:
        return None
    a, b, divides_in_body = parts
    if not ctx.sizes.is_size(a):
        return None
    divides, rest = (node.body[0], node.orelse[0]) if divides_in_body else (node.orelse[0], node.body[0])
    target = single_name_assignment(divides)
    if target is None or target != single_name_assignment(rest) or isinstance(node.orelse[0], ast.If):
        return None
    if not same_but_remainder(divides.value, rest.value, a, b):
        return None
    return a, b, target, divides


class SizeRemainderBranch(Rule):
    code = "ONX606"
    name = "size-remainder-branch"
    summary = "A branch on whether a size divides evenly (TF \"SAME\" padding): one formula with `(a - 1) % b + 1`"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    triggers = ("%",)
    doc = RuleDoc(
        what="Finds `if A % B == 0: V = f(B) else: V = f(A % B)` (also `!= 0` with the arms swapped, "
        "`not A % B`) in export-time code where `A` is a tensor size: the arms assign one name by "
        "one formula, at the divisor where the size divides and at the remainder elsewhere. "
        "TensorFlow-style \"SAME\" padding (MobileNet, EfficientNet and MobileViT ports, timm's "
        "`pad_same`) is written this way.",
        why="With the size dynamic, torch.export guards on the branch (`Eq(Mod(h, 2), 0)`: "
        "onnxfix reports ONX915, \"works only when the size is even\") and the exported model pads "
        "for the export-time remainder: other sizes give the wrong output shape, silently "
        "(transformers' MobileNetV2 with a dynamic image size: (3, 1280, 1, 1) where eager gives "
        "(3, 1280, 2, 2)). The legacy exporter records the branch taken.",
        example="def forward(self, x):\n    h = x.shape[-2]\n    if h % 2 == 0:\n"
        "        pad = max(3 - 2, 0)\n    else:\n        pad = max(3 - (h % 2), 0)\n"
        "    return F.pad(x, (0, 0, pad // 2, pad - pad // 2))",
        use_instead="def forward(self, x):\n    h = x.shape[-2]\n    pad = max(3 - ((h - 1) % 2 + 1), 0)\n"
        "    return F.pad(x, (0, 0, pad // 2, pad - pad // 2))",
        fix_safety="Unsafe: `(A - 1) % B + 1` is B where B divides A and `A % B` elsewhere for every "
        "int A and every B > 0 (Python's `%` is floor modulo, so A = 0 and negative A hold too), but "
        "not for a negative B, and a stride's sign is not in the source. With B > 0 the value is "
        "the same int in eager; under export it is one expression over the size (Mod in the graph), "
        "and `max` of it with a constant is decided by the size's range, without a guard.",
        references=("https://www.tensorflow.org/api_docs/python/tf/nn#notes_on_padding_2",
                    "https://github.com/huggingface/transformers/blob/main/src/transformers/models/mobilenet_v2/modeling_mobilenet_v2.py"),
    )

    def visit_If(self, node: ast.If, ctx: FunctionContext):
        branch = remainder_branch(node, ctx)
        if branch is None:
            return
        a, b, target, divides = branch
        counted = f"(({ctx.segment(a)} - 1) % {ctx.segment(b)} + 1)"
        value = ast.unparse(_Replace(b, ast.parse(counted, mode="eval").body).visit(copy.deepcopy(divides.value)))
        comments = comments_outside(ctx, node, [])
        fix = None if comments is None else Fix(
            "Compute both arms with one formula: the remainder counted from 1",
            (replace_statements(ctx, node, node, f"{target} = {value}", comments),), safe=False)
        message = (f"branch on whether `{ctx.segment(a)}`, a size, divides by `{ctx.segment(b)}`: with the size "
                   "dynamic, torch.export keeps only the export-time remainder (other sizes get that branch's "
                   f"`{target}`, silently) and the legacy exporter records the branch; both arms are "
                   f"`{target} = {value}`")
        yield ctx.report(self, node, message, fix=fix)


RULES = [SizeRemainderBranch]
