"""ONX601 on a size read from tensor values: an early exit on an empty selection whose value is
what the main path computes for the empty selection anyway (`if y.numel() == 0: return
x.new_zeros(())` before `return y.sum()`)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.bindings import bound_once
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import (
    bound_before,
    comments_outside,
    next_statement,
    replace_statements,
    single_name_assignment,
)

# A reduction and its value on an empty tensor, with the builders of a 0-d tensor holding it.
EMPTY_VALUE = {"sum": ("zeros", 0), "prod": ("ones", 1)}
EMPTY_SIZES = frozenset({"numel", "nelement"})


def empty_exit_fix(node: ast.If, shape, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """Drop `if <y empty>: return <0-d zero>` before `return y.sum()` (`prod` and a one alike;
    one assignment to the same name in each branch alike). On an empty `y` the sum is a zero (of
    `y`'s dtype, int64 for integers and bools, on `y`'s device): the early value equals it when
    its dtype and device agree, which static analysis cannot check, so the fix is unsafe. Both
    exporters export the selection and its sum (measured: tests/realworld/numel_empty_exit.py)."""
    tested = _tested_empty(node.test, ctx)
    if tested is None or shape is None:
        return None
    kind, target, when_true, when_false, last = shape
    if not isinstance(when_false, ast.AST):
        return None
    reduction = _reduction_of(when_false, tested, ctx)
    if reduction is None or not _constant_0d(when_true, EMPTY_VALUE[reduction], ctx):
        return None
    comments = comments_outside(ctx, node, [when_false], last)
    if comments is None:
        return None
    kept = ctx.segment(when_false)
    new = f"return {kept}" if kind == "return" else f"{target} = {kept}"
    fix = Fix(f"Drop the empty check (`{kept}` of an empty `{tested}` is the same value)",
              (replace_statements(ctx, node, last, new, comments),), safe=False)
    why = (
        f"; the early value is what `{kept}` gives for an empty `{tested}`: drop the check (unsafe: equal "
        f"only if the early value has the device and dtype of `{kept}`, int64 for an integer or bool `{tested}`)"
    )
    return fix, why


def branch_shape(node: ast.If, ctx: FunctionContext):
    """('return'|'assign', target, true expr, false expr, last statement replaced) or None."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.If) and node in parent.orelse:
        return None  # an `elif`: replacing it would detach it from the `if` it belongs to
    body, orelse = node.body, node.orelse
    if len(body) != 1:
        return None
    only = body[0]
    if isinstance(only, ast.Return) and only.value is not None:
        if len(orelse) == 1 and isinstance(orelse[0], ast.Return) and orelse[0].value is not None:
            return "return", None, only.value, orelse[0].value, node
        following = next_statement(node, ctx)
        if not orelse and isinstance(following, ast.Return) and following.value is not None:
            return "return", None, only.value, following.value, following
        return None
    target = single_name_assignment(only)
    if target is None:
        return None
    if len(orelse) == 1 and single_name_assignment(orelse[0]) == target:
        return "assign", target, only.value, orelse[0].value, node
    if not orelse and bound_before(target, node, ctx):
        return "assign", target, only.value, target, node  # no else: keep the previous value
    return None


def _tested_empty(test: ast.expr, ctx: FunctionContext) -> str | None:
    """`y.numel() == 0`, `len(y) == 0`, `y.shape[k] == 0`, `y.size(k) == 0` (any dimension of size
    zero empties `y`): the name `y`."""
    receiver = emptiness_receiver(test, ctx, any_dim=True)
    return receiver.id if isinstance(receiver, ast.Name) else None


def emptiness_receiver(test: ast.expr, ctx: FunctionContext, any_dim: bool = False) -> ast.expr | None:
    """The tensor an emptiness test reads: `t.numel() == 0`, `t.shape[0] == 0`, `t.size(0) == 0`,
    `len(t) == 0` (either side), `not t.numel()`, `not len(t)`; with ``any_dim`` any dimension's
    size (`t.shape[2] == 0`). None for other tests."""
    tested = zero_tested(test)
    return None if tested is None else _size_of(tested, ctx, any_dim)


def zero_tested(test: ast.expr) -> ast.expr | None:
    """The value a test finds zero: `v == 0`, `0 == v`, `not v`; None for other tests."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    left, right = test.left, test.comparators[0]
    if _is_zero(left):
        left, right = right, left
    return left if _is_zero(right) else None


def nonemptiness_receiver(test: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """The tensor a non-emptiness test reads: `t.numel() > 0`, `0 < t.numel()`, `t.numel() != 0`,
    `t.numel() >= 1`, or a size itself as the test (`if len(t):`, `if t.shape[0]:`)."""
    if not isinstance(test, ast.Compare):
        return _size_of(test, ctx, False)
    if len(test.ops) != 1:
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _is_zero(left) and isinstance(op, (ast.Lt, ast.NotEq)):  # `0 < n`, `0 != n`
        return _size_of(right, ctx, False)
    one = isinstance(right, ast.Constant) and type(right.value) is int and right.value == 1
    if (_is_zero(right) and isinstance(op, (ast.Gt, ast.NotEq))) or (one and isinstance(op, ast.GtE)):
        return _size_of(left, ctx, False)
    return None


def _size_of(node: ast.expr, ctx: FunctionContext, any_dim: bool) -> ast.expr | None:
    """The tensor whose size (a dimension's, ``any_dim``, else the first's or its numel) ``node``
    is: spelled there, or a name bound once to it (DeePMD's `n = w.shape[0]` before `if n == 0:`)."""
    if isinstance(node, ast.Name):
        bound = bound_once(node, ctx)
        return None if bound is node else _size_of(bound, ctx, any_dim)
    dimension = _is_int if any_dim else _is_zero
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        method = node.func.attr
        if (method in EMPTY_SIZES and not node.args) or (method == "size" and len(node.args) == 1 and dimension(node.args[0])):
            return node.func.value
    if isinstance(node, ast.Subscript) and dimension(node.slice):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return node.value.value
    if builtin_call(node, ctx, frozenset({"len"})) and len(node.args) == 1:
        return node.args[0]
    return None


def _reduction_of(node: ast.expr, name: str, ctx: FunctionContext) -> str | None:
    """`y.sum()` / `torch.sum(y)` (and prod), with no other argument: the reduction's name."""
    if not (isinstance(node, ast.Call) and not node.keywords):
        return None
    func = node.func
    qualname = ctx.qualname(func)
    if qualname is not None:
        module, _, last = qualname.rpartition(".")
        operand = node.args[0] if module == "torch" and len(node.args) == 1 else None
    elif isinstance(func, ast.Attribute) and not node.args:
        last, operand = func.attr, func.value
    else:
        return None
    if last in EMPTY_VALUE and isinstance(operand, ast.Name) and operand.id == name:
        return last
    return None


def _constant_0d(node: ast.expr, value: tuple[str, int], ctx: FunctionContext) -> bool:
    """`x.new_zeros(())`, `torch.zeros([])`, `torch.tensor(0.0)` (`ones` and 1 for `prod`), with
    at most `dtype=` and `device=` besides: a 0-d tensor holding the reduction's empty value."""
    if not isinstance(node, ast.Call) or any(k.arg not in ("dtype", "device", "size") for k in node.keywords):
        return False
    builder, number = value
    sizes = [*node.args, *(k.value for k in node.keywords if k.arg == "size")]
    qualname = ctx.qualname(node.func)
    if qualname == "torch.tensor":
        data = node.args[0] if len(node.args) == 1 and not any(k.arg == "size" for k in node.keywords) else None
        return isinstance(data, ast.Constant) and type(data.value) in (int, float) and data.value == number
    if qualname == f"torch.{builder}" or (
        qualname is None and isinstance(node.func, ast.Attribute) and node.func.attr == f"new_{builder}"
    ):
        return len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)) and not sizes[0].elts
    return False


def _is_zero(node: ast.expr) -> bool:
    return int_constant(node) == 0


def _is_int(node: ast.expr) -> bool:
    return int_constant(node) is not None
