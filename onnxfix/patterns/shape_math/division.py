"""ONX405: floor division of a size difference, which both exporters translate as truncation."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import ARITH, TERM, UNARY, in_place_of, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


class SizeFloorDivision(Rule):
    code = "ONX405"
    name = "size-floor-division"
    summary = "`//` of a size difference that can be negative: both exporters truncate toward zero"
    triggers = ("//",)
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds floor division `a // b` of a size expression that can be negative: a
            difference of two sizes (`dh = sized.size(2) - t.size(2)`, the pad-or-crop amount
            that matches one feature map to another) or a negated size (`-(-h // 4)`), directly
            or through a name bound once to one. A size minus a constant (`(h - k) // s + 1`,
            a convolution's output length) is not reported: it is negative only for inputs
            the model rejects anyway.
        """,
        why="""
            Python's `//` floors; ONNX `Div` on integers truncates toward zero. Both exporters
            translate floor division of sizes to a bare `Div`: the legacy exporter's
            `aten::floordiv` symbolic ("floor_divide actually truncates",
            torch/onnx/_internal/torchscript_exporter/symbolic_opset9.py) and the dynamo
            exporter's `_operator::floordiv` ("only for positive inputs", onnxscript's
            torch_lib). A negative difference gives another value: `-1 // 2` is `-1` in Python
            and `0` in the exported model. Measured on torch 2.13
            (tests/realworld/match_size_pad.py, a crop of an upsampled map by
            `F.pad(t, (dw // 2, dw - dw // 2, ...))`): silently wrong under both exporters,
            even on the export inputs.
        """,
        example="""
            def forward(self, x, ref):
                dh = ref.size(2) - x.size(2)
                return F.pad(x, (0, 0, dh // 2, dh - dh // 2))
        """,
        use_instead="""
            def forward(self, x, ref):
                dh = ref.size(2) - x.size(2)
                return F.pad(x, (0, 0, (dh - dh % 2) // 2, dh - (dh - dh % 2) // 2))
        """,
        fix_safety="""
            `a // b` -> `(a - a % b) // b`: safe when `a` and `b` are provably ints (sizes, int
            constants, integer arithmetic of those). Python defines `a == b * (a // b) + a % b`,
            so `a - a % b` is an exact multiple of `b` and its quotient is `a // b` for every
            int `a` and `b != 0` (both raise ZeroDivisionError for 0; tests/test_values_exactness.py).
            An exact quotient is the same truncated or floored, and `%` is translated with
            Python's sign rule by both exporters (ONNX `Mod` with `fmod=0`), so the exported
            model computes it. Ceil division by negation, `-(-h // k)` with `k` a provably
            non-negative int, becomes `(h + k - 1) // k` (the form ONX402 writes): equal for every
            int `h` and `k > 0`, and its numerator is not negative for a size. A divisor not
            proven an int (`self.stride`): the same rewrite, unsafe (float floor division
            rounds its own way).
        """,
        references=(
            "https://github.com/pytorch/pytorch/issues/27838",
            "https://onnx.ai/onnx/operators/onnx__Div.html",
        ),
    )

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        if not isinstance(node.op, ast.FloorDiv):
            return
        a, b = node.left, node.right
        if _exact_multiple(a, b, ctx):
            return  # `(a - a % b) // b`: this rule's own fix
        if _only_read_when_positive(node, ctx):
            return
        difference = _signed_size(a, ctx)
        if difference is None or not ctx.ints.is_int(a):
            return
        message = (
            f"`//` of {difference}, which can be negative: both exporters translate floor division of sizes "
            f"to ONNX `Div`, which truncates toward zero (silently wrong for a negative value)"
        )
        if isinstance(b, ast.Constant) and b.value == 0 or ctx.sizes.is_size(b) and not ctx.ints.is_int(b):
            yield ctx.report(self, node, message + "; no automatic fix: the divisor is not an int")
            return
        divisor = operand(ctx.segment(b), b, UNARY)
        parent = ctx.parent(node)
        if _negated(parent) and _negated(a) and ctx.ints.is_nonnegative_int(b):
            # `-(-h // k)`, ceil division by negation: `(h + k - 1) // k`, as ONX402 writes it
            size = a.operand
            shift = f" + {b.value - 1}" if isinstance(b, ast.Constant) else f" + {ctx.segment(b)} - 1"
            numerator = f"({operand(ctx.segment(size), size, ARITH)}{shift})" if shift != " + 0" else operand(
                ctx.segment(size), size, TERM)
            text = f"{numerator} // {divisor}"
            target, title = parent, "Use `(a + b - 1) // b`"
        else:
            left = operand(ctx.segment(a), a, ARITH)
            text = f"({left} - {operand(ctx.segment(a), a, TERM)} % {divisor}) // {divisor}"
            target, title = node, "Divide the exact multiple `(a - a % b) // b`"
        if not _parenthesized(target, ctx):
            text = in_place_of(ctx.parent(target), target, text, TERM)
        safe = ctx.ints.is_int(b)
        fix = Fix(title, (ctx.replace(target, text),), safe=safe)
        why = "" if safe else f"; fix is unsafe: `{ctx.segment(b)}` is not proven an int"
        yield ctx.report(self, node, message + why, fix=fix)


def _only_read_when_positive(node: ast.BinOp, ctx: FunctionContext) -> bool:
    """``q = d // k`` (``k`` a positive literal) read only as the test ``q > 0`` / ``q >= 1`` of
    an ``if`` and inside that ``if``'s body. For k > 0, floor and truncation agree on whether
    the quotient is positive, and where it is they agree on its value: the codecs' residual
    units (``padding = (a - b) // 2; if padding > 0: x = x[..., padding:-padding]``)."""
    statement = ctx.parent(node)
    divisor = node.right
    if not (
        isinstance(divisor, ast.Constant) and type(divisor.value) is int and divisor.value > 0
        and isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name) and len(ctx.assignments(statement.targets[0].id)) == 1
    ):
        return False
    name = statement.targets[0].id
    reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return bool(reads) and all(_guarded_by_positive_test(read, name, ctx) for read in reads)


def _guarded_by_positive_test(read: ast.Name, name: str, ctx: FunctionContext) -> bool:
    child: ast.AST = read
    for ancestor in ctx.ancestors(read):
        if isinstance(ancestor, ast.If) and _is_positive_test(ancestor.test, name):
            if child is ancestor.test or any(child is statement for statement in ancestor.body):
                return True
        child = ancestor
    return False


def _is_positive_test(test: ast.expr, name: str) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)):
        return False
    bound = test.comparators[0]
    if test.left.id != name or not (isinstance(bound, ast.Constant) and type(bound.value) is int):
        return False
    return isinstance(test.ops[0], ast.Gt) and bound.value == 0 or isinstance(test.ops[0], ast.GtE) and bound.value == 1


def _negated(node: ast.AST | None) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)


def _parenthesized(node: ast.AST, ctx: FunctionContext) -> bool:
    """``node``'s text is already inside grouping parentheses (``-(h // 4)``)."""
    text = ctx.file.source.text
    start, end = ctx.file.source.span(node)
    return text[:start].rstrip().endswith("(") and text[end:].lstrip().startswith(")")


def _exact_multiple(a: ast.AST, b: ast.AST, ctx: FunctionContext) -> bool:
    """``x - x % b``: a multiple of ``b``, whose quotient truncation and flooring agree on."""
    return (
        isinstance(a, ast.BinOp) and isinstance(a.op, ast.Sub) and isinstance(a.right, ast.BinOp)
        and isinstance(a.right.op, ast.Mod) and ctx.segment(a.right.right) == ctx.segment(b)
        and ctx.segment(a.right.left) == ctx.segment(a.left)
    )


def _signed_size(node: ast.AST, ctx: FunctionContext, depth: int = 0) -> str | None:
    """How ``node`` can be negative: "a difference of sizes" (``a - b`` with ``b`` a size, not a
    number) or "a negated size" (``-h``), directly or through a name bound once to one."""
    if depth > 4:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        return "a difference of sizes" if ctx.sizes.is_size(node.left) and ctx.sizes.is_size(node.right) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return "a negated size" if ctx.sizes.is_size(node.operand) else None
    if isinstance(node, ast.Name) and not ctx.is_parameter(node.id):
        values = ctx.assignments(node.id)
        if len(values) == 1 and isinstance(values[0], ast.expr):
            found = _signed_size(values[0], ctx, depth + 1)
            return f"`{node.id}`, {found}" if found else None
    return None
