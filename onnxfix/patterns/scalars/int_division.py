"""`int(a / b)` of sizes and its integer forms (ONX203): the quotient's parts, the floor-division
fix, and a ratio of size products (Swin's `int(windows.shape[0] / (H * W / ws / ws))`)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.integers import own_size_helper
from onnxfix.rewriter.precedence import ARITH, TERM, UNARY, in_place_of, operand
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk


def _division_fix(node: ast.Call, division, ints, ctx: FunctionContext) -> tuple[Fix, str, str]:
    """(fix, the `+ c` text, why unsafe) of `int(a / b [+ c])` -> `a // b [+ c]`."""
    (a, b, c), plus = division, ""
    divisor_proven = ints.is_nonnegative_int(b)
    text = f"{operand(ctx.segment(a), a, TERM)} // {operand(ctx.segment(b), b, UNARY)}"
    if c is not None:
        plus = f" + {ctx.segment(c)}"
        text = f"{text}{plus}"
    text = in_place_of(ctx.parent(node), node, text, TERM if c is None else ARITH)
    safe = divisor_proven and ints.is_nonnegative_int(a)
    fix = Fix(f"Use floor division `a // b{plus}`", (ctx.replace(node, text),), safe=safe)
    unsafe = "" if safe else (
        f" (unsafe: `{ctx.segment(b)}` is not proven a non-negative int: a float divisor makes "
        f"`a // b` a float, a negative one floors where `int()` truncates)" if not divisor_proven else
        f" (unsafe: truncation is flooring only where `a / b{plus}` is not negative, and "
        f"`{ctx.segment(a)}` is not proven non-negative)"
    )
    return fix, plus, unsafe


def _shifted_division(argument: ast.expr, ints) -> tuple[ast.expr, ast.expr, ast.expr | None] | None:
    """(a, b, c) for `a / b` (c None) or `a / b + c` / `c + a / b` (Moonshine's conv lengths,
    `int((n - 7) / 3 + 1)`), with `a` a proven int and `c` a non-negative int literal: with `b` a
    proven non-negative int (0 raises either way), `int()` of it is `a // b + c` wherever
    `a / b + c` is not negative (there truncation is flooring, and the integer `c` moves the floor
    by itself), for `|a| < 2**53` (tests/test_values_exactness.py). A divisor of unknown type
    (mmedit's `int(h / scale)`, `scale` a parameter) gets the same form, which the caller marks
    unsafe."""
    c = None
    if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Add):
        for quotient, shift in ((argument.left, argument.right), (argument.right, argument.left)):
            if isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.Div) and _small_int(shift):
                argument, c = quotient, shift
                break
        else:
            return None
    if not (isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Div)):
        return None
    a, b = argument.left, argument.right
    if not ints.is_int(a) or (isinstance(b, ast.Constant) and not ints.is_nonnegative_int(b)) or has_true_division(b):
        return None  # a divisor that is a float for sure: `int(h / 2.5)`, `int(n / (h * w / k))`
    return a, b, c


def product_ratio(argument: ast.expr, ints) -> tuple[list[ast.expr], list[ast.expr]] | None:
    """The factors above and below the line of a `*`/`/` tree whose leaves are ints, proven or
    of unknown type (no number literal but an int; no call): `n / (h * w / p / q)` -> ([n, p, q],
    [h, w]). None without a true division or with a proven-float leaf."""
    factors = _factors(argument, ints)
    return factors if factors is not None and factors[1] else None


def _factors(node: ast.expr, ints) -> tuple[list[ast.expr], list[ast.expr]] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left, right = _factors(node.left, ints), _factors(node.right, ints)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            return left[0] + right[0], left[1] + right[1]
        return left[0] + right[1], left[1] + right[0]
    if ints.is_int(node) or isinstance(node, (ast.Name, ast.Attribute)):
        return [node], []
    return None


RATIO_CAVEAT = ("exact in rational arithmetic, while the float expression rounds at each step (equal wherever the "
                "quotient is not within rounding of an integer)")


def ratio_floor_division(argument: ast.expr, ctx: FunctionContext) -> str | None:
    """`n / (h * w / p / q)` -> `n * p * q // (h * w)`: the integer products divided once (the
    float expression rounds at each step: equal wherever the quotient is not within rounding of an
    integer); None where the tree is no such ratio or a factor is no int `//` takes in its place."""
    ratio = product_ratio(argument, ctx.ints)
    if ratio is None or any(not ctx.ints.is_int(f) and no_floor_division(f, ctx) for f in ratio[0] + ratio[1]):
        return None
    numerator, denominator = ratio
    return f"{product(numerator, ctx)} // {product(denominator, ctx, UNARY)}"


def product(factors: list[ast.expr], ctx: FunctionContext, level: int = TERM) -> str:
    text = " * ".join(operand(ctx.segment(f), f, UNARY) for f in factors)
    return text if len(factors) == 1 or level <= TERM else f"({text})"


def has_true_division(node: ast.expr) -> bool:
    """`/` somewhere in the expression: a float (`h * w / ws / ws`)."""
    return any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.Div) for m in walk(node))


def _small_int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value < 2**20


def no_floor_division(divisor: ast.expr, ctx: FunctionContext) -> bool:
    """A divisor `a // b` cannot take in `int(a / b)`'s place: a scale that can be fractional
    (`a // b` a float), or a tensor (`a // b` a tensor, which no size argument takes)."""
    return _scale_factor(divisor, ctx) or _may_be_a_tensor(divisor, ctx)


def _may_be_a_tensor(divisor: ast.expr, ctx: FunctionContext) -> bool:
    """Known to be a tensor, or a parameter of forward itself (what the model is called with)."""
    return ctx.tensors.is_tensor(divisor) is True or (
        isinstance(divisor, ast.Name) and ctx.fn.is_entry and ctx.is_parameter(divisor.id))


def _scale_factor(divisor: ast.expr, ctx: FunctionContext) -> bool:
    """A divisor of unknown type that the function elsewhere multiplies a size by under `int()`
    or inverts (CAIN's pixel_shuffle: `int(in_height * scale_factor)`, `int(1 / scale_factor)`):
    a scale that can be fractional, where `a // b` would be a float. Products inside the ratio
    itself (`h * w / h_sp / w_sp`) say nothing."""
    leaves = [n for n in walk(divisor) if isinstance(n, (ast.Name, ast.Attribute))]
    return any(_scaled_by(ast.unparse(leaf), ctx) for leaf in leaves)  # `shuffle_ratio**2` too (Llama 4)


def _truncation(call: ast.Call, ctx: FunctionContext) -> bool:
    """ONX203's fixes of `int()`, the same truncation: `torch.sym_int(...)`, `_onnx_sym_int(...)`."""
    return ctx.qualname(call.func) == "torch.sym_int" or own_size_helper(call) == "_onnx_sym_int"


def _scaled_by(text: str, ctx: FunctionContext) -> bool:
    for n in walk(ctx.fn.node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) and isinstance(n.left, ast.Constant) and ast.unparse(n.right) == text:
            return True
        if not isinstance(n, ast.Call):
            continue
        truncated = builtin_call(n, ctx, frozenset({"int"})) == "int" or _truncation(n, ctx)
        if truncated and len(n.args) == 1 and any(
            isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult) and text in (ast.unparse(m.left), ast.unparse(m.right))
            and not has_true_division(n.args[0]) for m in walk(n.args[0])
        ):
            return True
    return False


CHUNK_COUNT = ("it is how many chunks `chunk` returns, a Python list whose length neither exporter keeps dynamic "
               "(the legacy trace keeps the example's count, whose chunks still cover every row; a traced count would "
               "cut them short)")


def counts_chunks(node: ast.AST, ctx: FunctionContext) -> bool:
    """The count of `x.chunk(n)` / `torch.chunk(x, n)` (TabNet's ghost batch norm:
    `x.chunk(int(np.ceil(x.shape[0] / vbs)), 0)`, each chunk then normalized in a Python loop)."""
    call = ctx.parent(node)
    if isinstance(call, ast.keyword):  # `torch.chunk(x, chunks=n)`
        return call.arg == "chunks" and isinstance(ctx.parent(call), ast.Call)
    if not isinstance(call, ast.Call):
        return False
    if isinstance(call.func, ast.Attribute) and call.func.attr == "chunk" and ctx.qualname(call.func) != "torch.chunk":
        return bool(call.args) and call.args[0] is node
    return ctx.qualname(call.func) == "torch.chunk" and len(call.args) > 1 and call.args[1] is node


def int_of_integer_arithmetic(node: ast.Call, ctx: FunctionContext) -> ast.Call | None:
    """fbcnn's `int(np.ceil(h / 8) * 8 - h)`: the `int()` around `+`, `-`, `*` (and unary minus)
    of the rounded quotient with ints only, which its integer twin makes integer arithmetic."""
    child, parent = node, ctx.parent(node)
    while True:
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub, ast.Mult)):
            other = parent.right if parent.left is child else parent.left
            if not ctx.ints.is_int(other):
                return None
        elif not (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, (ast.USub, ast.UAdd))):
            break
        child, parent = parent, ctx.parent(parent)
    if child is node or not (builtin_call(parent, ctx, frozenset({"int"})) and parent.args == [child]):
        return None
    return parent



def rounded_in_int_arithmetic(int_call: ast.Call, ctx: FunctionContext) -> bool:
    """`int(np.ceil(h / 8) * 8 - h)`: ONX402 rewrites the NumPy rounding of a size quotient by a
    positive int literal to integer arithmetic and drops the `int()`, exactly (not a chunk count,
    which it leaves)."""
    if counts_chunks(int_call, ctx):
        return False
    for call in walk(int_call.args[0]):
        if (
            isinstance(call, ast.Call) and ctx.qualname(call.func) in ("numpy.ceil", "numpy.floor")
            and len(call.args) == 1 and isinstance(call.args[0], ast.BinOp) and isinstance(call.args[0].op, ast.Div)
            and _small_int(call.args[0].right) and call.args[0].right.value > 0 and ctx.ints.is_int(call.args[0].left)
            and int_of_integer_arithmetic(call, ctx) is int_call
        ):
            return True
    return False
