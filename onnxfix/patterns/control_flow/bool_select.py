"""The `torch.where` text ONX601 writes for a branch that selects between values, with Python
bools taken care of. `torch.where(c, False, True)` is what kornia's `validate_bbox` becomes, and it
breaks twice: the legacy exporter has no `aten::where` for bool scalars (an alias-analysis
INTERNAL ASSERT) and onnxruntime has no CPU kernel for `Where` on bool tensors. Between bool
values the select is a logical expression instead (`~c`, `~c & x`, `c | x`): the same bool
tensor, element by element, in eager, and And/Or/Not in the graph."""

from __future__ import annotations

import ast

from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.statements import parenthesize

_ATOMS = (ast.Name, ast.Call, ast.Attribute, ast.Subscript)


def select_text(condition: str, when_true: ast.expr, when_false: ast.expr | str, ctx: FunctionContext, torch: str) -> str:
    """`torch.where(condition, when_true, when_false)`, or its logical form when both sides are
    bools. ``when_false`` may be the text of the name a branch with no `else` keeps."""
    true_bool, false_bool = _bool_literal(when_true), _bool_literal(when_false)
    if true_bool is not None and false_bool is not None and true_bool != false_bool:
        return _keep(condition) if true_bool else f"~{_operand(condition)}"
    if true_bool is not None and isinstance(when_false, ast.expr) and is_bool_tensor(when_false, ctx):
        other = _operand(_text(when_false, ctx))
        return f"{_operand(condition)} | {other}" if true_bool else f"~{_operand(condition)} & {other}"
    if false_bool is not None and is_bool_tensor(when_true, ctx):
        other = _operand(_text(when_true, ctx))
        return f"~{_operand(condition)} | {other}" if false_bool else f"{_operand(condition)} & {other}"
    false_text = _branch(when_false, ctx, torch) if isinstance(when_false, ast.expr) else when_false
    return f"{torch}.where({condition}, {_branch(when_true, ctx, torch)}, {false_text})"


def _bool_literal(node: ast.expr | str) -> bool | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, bool) else None


def _branch(node: ast.expr, ctx: FunctionContext, torch: str) -> str:
    """A Python bool beside a value of another dtype: a 0-d tensor, which the legacy exporter
    takes (a CPU 0-d tensor is allowed beside a condition on any device; the result's dtype and
    values are those of the Python bool's)."""
    literal = _bool_literal(node)
    return f"{torch}.tensor({literal})" if literal is not None else _text(node, ctx)


def _text(node: ast.expr, ctx: FunctionContext) -> str:
    return parenthesize(ctx.segment(node), node)


def _operand(text: str) -> str:
    """``text`` as an operand of `~`, `&` or `|` (which bind tighter than comparisons)."""
    parsed = _parsed(text)
    inverted = isinstance(parsed, ast.UnaryOp) and isinstance(parsed.op, ast.Invert)  # `~` binds tighter
    return text if isinstance(parsed, _ATOMS) or inverted else f"({text})"


def _keep(condition: str) -> str:
    """The condition itself as the selected value: a copy where it is a tensor the code holds
    (the select made a new tensor, which the caller may write into)."""
    parsed = _parsed(condition)
    return f"{condition}.clone()" if isinstance(parsed, (ast.Name, ast.Attribute, ast.Subscript)) else condition


def _parsed(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
