"""Python numbers computed from sizes (ONX205's list elements): LightGlue's `w * s - s / 2 - 0.5`,
torchvision's box ratio `new_width / old_width` through a name assigned once."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number

# Python arithmetic of numbers gives a number (`**` left out: a negative base to a fractional
# power is a complex number)
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)


def size_number(node: ast.AST, ctx: FunctionContext, depth: int = 0) -> tuple[bool, bool]:
    """(``node`` is a Python number, it is computed from a tensor's size) for arithmetic whose
    leaves are sizes, ints, numeric literals and names assigned once to such arithmetic."""
    if ctx.sizes.is_size(node) or isinstance(node, ast.Name) and ctx.sizes.passed_a_size(node):
        return True, True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
        left, right = size_number(node.left, ctx, depth), size_number(node.right, ctx, depth)
        return left[0] and right[0], left[1] or right[1]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return size_number(node.operand, ctx, depth)
    if isinstance(node, ast.Name) and depth < 4 and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        if len(values) == 1 and not isinstance(values[0], ast.Assign):  # not a tuple-unpacking target
            number, from_size = size_number(values[0], ctx, depth + 1)
            if number:
                return number, from_size
    return is_number(node) or ctx.ints.is_int(node), False
