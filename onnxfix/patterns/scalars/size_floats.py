"""What ONX203 asks of a size expression under `int()`: a size scaled by a float, a name bound
to float math on sizes, a size halved by a literal power of one half."""

from __future__ import annotations

import ast

from onnxfix.rewriter.config_numbers import is_config_int, is_config_number
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import own_size_helper, unpacked_element
from onnxfix.rewriter.tree_walk import walk


def scaled_size(argument: ast.expr, ctx: FunctionContext) -> bool:
    """A size scaled or shifted by a number that is no tensor (kornia's `int(height * factor)`):
    a float under `int()` when the number is one, which torch.export specializes."""
    if not (isinstance(argument, ast.BinOp) and isinstance(argument.op, (ast.Mult, ast.Div, ast.Add, ast.Sub, ast.Pow))):
        return False
    sides = (argument.left, argument.right)
    sized = [side for side in sides if ctx.sizes.is_size_quotient(side) or scaled_size(side, ctx)]
    return bool(sized) and all(side in sized or ctx.tensors.is_tensor(side) is not True for side in sides)


FLOAT_MATH = frozenset({"math.sqrt", "math.log", "math.log2", "math.exp"})


def float_valued(name: ast.Name, ctx: FunctionContext) -> bool:
    """A local name bound to float math on sizes (`f = self.new_sr * length / self.old_sr`): a
    true division, a float literal or a power in some binding that the size oracle reads as a size
    (a parameter's own rebindings too: DINOv2's `height, width = height + 0.1, width + 0.1`)."""
    if not ctx.sizes.is_size(name):
        return False
    values = [_bound_value(v, name.id) for v in ctx.assignments(name.id)]
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Pow)) or (
        isinstance(n, ast.Constant) and type(n.value) is float) or (
        isinstance(n, ast.Call) and ctx.qualname(n.func) in FLOAT_MATH) or (
        isinstance(n, ast.Call) and own_size_helper(n) == "_onnx_size_sqrt") or (
        is_config_number(n, ctx) and not is_config_int(n, ctx))  # `w0 + self.interpolate_offset` (0.1)
        for v in values if v is not None for n in walk(v))


def _bound_value(value: ast.AST, name: str) -> ast.AST | None:
    """The expression a binding gives ``name``: the element of a tuple unpacking
    (`w0, h0 = w0 + offset, h0 + offset`), the operand of an augmented one, None for other
    statements."""
    if isinstance(value, ast.Assign):
        return unpacked_element(value, name)
    if isinstance(value, ast.AugAssign):  # `w0 += self.interpolate_offset`: what is added
        return value.value
    return value if isinstance(value, ast.expr) else None


def halved_size(argument: ast.expr, ints) -> tuple[ast.expr, int] | None:
    """(size, 2**m) for `size * c` or `c * size` with c a literal 2**-m (0.5, 0.25, ...): for a
    non-negative int below 2**53 the product is exact and int() truncates it, which is floor
    division by 2**m."""
    if not (isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Mult)):
        return None
    for size, factor in ((argument.left, argument.right), (argument.right, argument.left)):
        value = factor.value if isinstance(factor, ast.Constant) else None
        if type(value) is float and 0 < value < 1 and (1 / value).is_integer() and ints.is_nonnegative_int(size):
            divisor = int(1 / value)
            if divisor & (divisor - 1) == 0:  # a power of two: 1/value is exact
                return size, divisor
    return None
