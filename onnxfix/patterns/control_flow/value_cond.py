"""The predicate ONX613 hands torch.cond for an `if` on a tensor's value.

An `if` on sizes passes its test as is (a SymBool under torch.export). An `if` on a tensor's value
(`if not self._threshold.isnan():`, anomalib's post-processor) cannot: Python takes the tensor's
truth first, which torch.export cannot decide ("Could not guard on data-dependent expression").
torch.cond takes the one-element bool tensor itself: ONX601's `torch.where` text for the test
(`~t.isnan()` for `not t.isnan()`), whose truth is the test's. `and` / `or` of Python values
followed by tensor tests keep the Python operands as they were and join the tensor tests with `&`
/ `|` (`preds is None or (norm_min.isnan()) | (norm_max.isnan())`).
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from onnxfix.decompositions import helper_source
from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Helper
from onnxfix.rewriter.tree_walk import walk

VALUE_COND = Helper("_onnx_value_cond", helper_source("value_cond"))
JOINS = {ast.Or: "|", ast.And: "&"}


class Predicate(NamedTuple):
    """What `_onnx_*_cond` is given, the helper that takes it, and whether its truth is the test's
    by construction (no `.item()` dropped, no operand evaluated that the test short-circuited)."""

    text: str
    helper: Helper
    exact: bool


def value_predicate(test: ast.expr, ctx: FunctionContext) -> Predicate | None:
    """The one-element bool tensor standing for a test on a tensor's value, or None."""
    if isinstance(test, ast.BoolOp):
        return _joined(test, ctx)
    condition = tensor_condition(test, ctx)
    if condition is None or condition.where_text is None:
        return None
    return Predicate(condition.where_text, VALUE_COND, not condition.joined and not _drops_item(test, ctx))


def _joined(test: ast.BoolOp, ctx: FunctionContext) -> Predicate | None:
    """Python operands first, as they were; the tensor tests after them joined by `|` / `&` (both
    evaluated: where the test short-circuited, eager now also computes the other: not exact; one
    tensor test after Python operands is evaluated exactly when the test evaluated it)."""
    values = _plain_python_first(test, ctx)
    conditions = [tensor_condition(value, ctx) for value in values]
    first = next((i for i, c in enumerate(conditions) if c is not None), None)
    if first is None or any(c is None or c.where_text is None for c in conditions[first:]):
        return None
    parts = [c.where_text if _atomic(c.where_text) else f"({c.where_text})" for c in conditions[first:]]
    tensors = f" {JOINS[type(test.op)]} ".join(parts)
    if first == 0:
        return Predicate(tensors, VALUE_COND, False)
    keyword = " or " if isinstance(test.op, ast.Or) else " and "
    python = keyword.join(_operand_text(value, ctx) for value in values[:first])
    exact = (len(parts) == 1 and not conditions[first].joined and not _drops_item(values[first], ctx)
             and _reordered_exactly(test, values))
    return Predicate(f"{python}{keyword}{tensors if len(parts) == 1 else f'({tensors})'}", VALUE_COND, exact)


def _plain_python_first(test: ast.BoolOp, ctx: FunctionContext) -> list[ast.expr]:
    """The operands with plain Python reads moved before the tensor tests (XMem's `if h_out[0]==1
    and self.is_hidden_updata:`): a flag, a constant or an `is` test cannot fail or run code, so
    `flag and test` has the truth of `test and flag`, and the flag, a Python value while either
    exporter traces, decides without the tensor where it is false. Only where every other operand
    is a tensor test (a call of unknown type keeps its place before the flag)."""
    values = list(test.values)
    plain = [value for value in values if tensor_condition(value, ctx) is None and _plain_read(value)]
    if not plain or len(plain) == len(values) or not all(
            any(value is p for p in plain) or tensor_condition(value, ctx) is not None for value in values):
        return values
    return plain + [value for value in values if not any(value is p for p in plain)]


def _reordered_exactly(test: ast.BoolOp, values: list[ast.expr]) -> bool:
    """The new order skips a tensor test where the flag decides: the same only where the tests
    skipped call nothing (a random draw or a dropout layer would not run: another eager state)."""
    if all(a is b for a, b in zip(values, test.values)):
        return True
    return not any(isinstance(n, ast.Call) for value in values for n in walk(value))


def _plain_read(value: ast.expr) -> bool:
    """A name, an attribute chain, a constant, `not` of one, or an `is` / `is not` test of them (no
    call, no index, no `==`, which a tensor overloads: nothing that runs code beyond reading a value)."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return _plain_read(value.operand)
    if isinstance(value, ast.Compare):
        return all(isinstance(op, (ast.Is, ast.IsNot)) for op in value.ops) and all(
            _plain_read(side) for side in (value.left, *value.comparators))
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, (ast.Constant, ast.Name))


def _atomic(text: str) -> bool:
    """An operand `|` / `&` binds as it is: a call, a name, an attribute, an index, `~` of one
    (read from the tree: a test's text may span lines, valid only in parentheses)."""
    node = ast.parse(f"({text})", mode="eval").body
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        node = node.operand
    return isinstance(node, (ast.Call, ast.Name, ast.Attribute, ast.Subscript))


# Python operands an `and` / `or` takes as they are: anything else is parenthesized
PLAIN_OPERANDS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.Compare, ast.UnaryOp)


def _operand_text(value: ast.expr, ctx: FunctionContext) -> str:
    text = ctx.segment(value)
    return text if isinstance(value, PLAIN_OPERANDS) else f"({text})"


def _drops_item(test: ast.expr, ctx: FunctionContext) -> bool:
    """The where text left out an `.item()` (a comparison made in the tensor's dtype, not a double)."""
    return any(ctx.tensors.item_receiver(n) is not None for n in walk(test))
