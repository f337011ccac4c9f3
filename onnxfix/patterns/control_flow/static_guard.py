"""ONX601: `if <Python values> and <tensor test>:` around assignments (the BART-family fp16
clamp): the Python part stays the `if`, the tensor test selects with `torch.where`."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import python_container, tensor_condition
from onnxfix.patterns.control_flow.size_parity import escapes_after
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import block_of, bound_before, parenthesize, single_name_assignment
from onnxfix.rewriter.tree_walk import walk

FLOAT_DTYPES = frozenset({
    "torch.float16", "torch.half", "torch.bfloat16", "torch.float32", "torch.float", "torch.float64", "torch.double",
})
SHAPE_KEEPING = frozenset({"clamp", "clip"})  # elementwise, the tensor's dtype kept for Python-number bounds
NUMBER_INFO = frozenset({"torch.finfo", "torch.iinfo"})


def static_guard_where(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """`if A and D: h1 = e1; ...; x = f(x)` with A decided at export (no tensor test in it) and D
    a tensor test with a `torch.where` form, no `else`, not an `elif`; every statement a
    single-name assignment, the last rebinding a name bound before the `if` from itself, the others to names set
    and read only in the body. Becomes `if A: h1 = e1; ...; x = torch.where(D, f(x), x)`: when A
    is false neither runs; when it holds, the helpers run whatever D (read nowhere else) and x
    gets f(x) where D holds and itself otherwise. The fix and the message's note, or None."""
    test = node.test
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)) or node.orelse:
        return None
    parent = ctx.parent(node)
    if isinstance(parent, ast.If) and node in parent.orelse:
        return None  # an `elif`
    *static, data = test.values
    if any(tensor_condition(value, ctx) for value in static):
        return None
    condition = tensor_condition(data, ctx)
    if condition is None or condition.where_text is None:
        return None
    *helpers, last = node.body
    target = single_name_assignment(last)
    if target is None or not bound_before(target, node, ctx):
        return None
    if python_container(last.value):
        return None  # `shape = [... for d in shape]`: torch.where selects tensors and numbers only
    if not any(isinstance(n, ast.Name) and n.id == target for n in walk(last.value)):
        return None  # not rebound from itself (`e = None; if ...: e = embed(...)`: where(c, t, None) raises)
    helper_names = []
    for statement in helpers:
        name = single_name_assignment(statement)
        if name is None or name == target or not _local_to(name, node, ctx):
            return None
        helper_names.append(name)
    source = ctx.file.source
    start, end = source.span(test)
    kept_end = source.span(static[-1])[1]
    if "#" in source.text[kept_end:end]:
        return None  # a comment inside the removed test
    torch, imports = ctx.torch_name()
    value = last.value
    selected = f"{torch}.where({condition.where_text}, {parenthesize(ctx.segment(value), value)}, {target})"
    edits = (ctx.replace(test, source.text[start:kept_end]), ctx.replace(value, selected))
    reasons = _unsafe_reasons(node, static, data, helpers, value, target, ctx)
    fix = Fix("Keep the Python test as the `if`; select with `torch.where` on the tensor test", edits,
              safe=not reasons, imports=imports)
    note = (
        f"; `{ctx.segment(data)}` is the only tensor test: keep the rest as the `if` and select with `torch.where`"
        + (f" (unsafe: {'; '.join(reasons)})" if reasons else "")
    )
    return fix, note


def _local_to(name: str, node: ast.If, ctx: FunctionContext) -> bool:
    """``name`` is read only inside the body of ``node``, or outside it only after an assignment
    to it earlier in the same block (LongT5's `clamp_value = ...` in three fp16 clamps of one
    function): running the body's assignment when the tensor test is false changes no value
    read anywhere else."""
    if ctx.is_parameter(name):
        return False
    inside = {id(n) for statement in node.body for n in walk(statement)}
    for current in walk(ctx.fn.node):
        if isinstance(current, ast.Name) and current.id == name and id(current) not in inside:
            if not isinstance(current.ctx, ast.Store) and not _rebound_before(current, name, node, ctx):
                return False
            if isinstance(ctx.parent(current), ast.AugAssign):
                return False  # `name += 1` reads it
        if isinstance(current, (ast.Global, ast.Nonlocal)) and name in current.names:
            return False
    return True


def _rebound_before(load: ast.Name, name: str, guard: ast.If, ctx: FunctionContext) -> bool:
    """An ancestor statement of ``load`` comes after `name = ...` in its block, and ``guard``
    is not between the two (nor in the statement holding ``load``), with no function or class
    around ``load`` (a closure reads the name when called, not where it stands)."""
    child: ast.AST = load
    for ancestor in ctx.ancestors(load):
        if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(child, ast.stmt):
            block = block_of(child, ctx)
            position = block.index(child)
            earlier = [i for i, s in enumerate(block[:position]) if single_name_assignment(s) == name]
            if earlier:
                between = block[earlier[-1] + 1 : position + 1]
                return not any(guard is n for s in between for n in walk(s))
        if ancestor is ctx.fn.node:
            return False
        child = ancestor
    return False


def _unsafe_reasons(node, static, data, helpers, value, target, ctx) -> list[str]:
    reasons = []
    if not _zero_dim_test(data, ctx):
        reasons.append("the tensor test may not be 0-d, and `torch.where` broadcasts the selection with it")
    numbers: set[str] = set()
    for helper in helpers:
        if _python_number(helper.value, numbers, ctx):
            numbers.add(single_name_assignment(helper))
    if len(numbers) != len(helpers):
        reasons.append("the body's other assignments now run when the tensor test is false")
    if not _keeps_dtype_and_shape(value, target, numbers, ctx) or not _floating_guard(static, target, ctx):
        reasons.append(
            f"`{ctx.segment(value)}` is not known to keep `{target}`'s dtype and shape (both sides of "
            "`torch.where` are promoted and broadcast together)"
        )
    escapes = escapes_after(target, node, ctx)
    if escapes:
        reasons.append(f"`{target}` is {escapes} after the `if`; where the test is false it is now a copy")
    return reasons


def _zero_dim_test(data: ast.expr, ctx: FunctionContext) -> bool:
    """`t.any()` / `t.all()` (no dim), `torch.any(t)` / `torch.all(t)`, or `not` of one: 0-d."""
    if isinstance(data, ast.UnaryOp) and isinstance(data.op, ast.Not):
        data = data.operand
    if not isinstance(data, ast.Call) or data.keywords:
        return False
    if isinstance(data.func, ast.Attribute) and data.func.attr in ("any", "all") and not data.args:
        return ctx.qualname(data.func) not in ("torch.any", "torch.all")
    return ctx.qualname(data.func) in ("torch.any", "torch.all") and len(data.args) == 1


def _python_number(expr: ast.expr, numbers: set[str], ctx: FunctionContext) -> bool:
    """Literals, names in ``numbers``, `torch.finfo(...)`/`torch.iinfo(...)` attributes and
    arithmetic of those: a Python number, computed without side effects."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, ast.Name):
        return expr.id in numbers
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _python_number(expr.operand, numbers, ctx)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult)):
        return _python_number(expr.left, numbers, ctx) and _python_number(expr.right, numbers, ctx)
    if isinstance(expr, ast.Attribute) and expr.attr in ("max", "min", "eps", "tiny"):
        info = expr.value
        return isinstance(info, ast.Call) and ctx.qualname(info.func) in NUMBER_INFO and len(info.args) == 1 and not info.keywords and isinstance(info.args[0], ast.Attribute) and info.args[0].attr == "dtype"
    return False


def _keeps_dtype_and_shape(value: ast.expr, target: str, numbers: set[str], ctx: FunctionContext) -> bool:
    """`torch.clamp(x, min=a, max=b)` / `x.clamp(a, b)` with Python-number bounds, x a tensor."""
    if not isinstance(value, ast.Call):
        return False
    func, args = value.func, list(value.args)
    qualname = ctx.qualname(func)
    if qualname in {f"torch.{name}" for name in SHAPE_KEEPING} and args:
        receiver, bounds = args[0], args[1:]
    elif isinstance(func, ast.Attribute) and func.attr in SHAPE_KEEPING and qualname is None:
        receiver, bounds = func.value, args
    else:
        return False
    if not (isinstance(receiver, ast.Name) and receiver.id == target and ctx.tensors.is_tensor(receiver)):
        return False
    if any(k.arg not in ("min", "max") for k in value.keywords):
        return False
    bounds = bounds + [k.value for k in value.keywords]
    if not bounds or len(bounds) > 2:
        return False
    return all(_python_number(bound, numbers, ctx) for bound in bounds)


def _floating_guard(static: list[ast.expr], target: str, ctx: FunctionContext) -> bool:
    """A conjunct `x.dtype == torch.<floating dtype>`: x is floating where the body runs, so Python
    float bounds keep its dtype (an integer tensor clamped by a float becomes float)."""
    for value in static:
        if (
            isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], (ast.Eq, ast.Is))
            and isinstance(value.left, ast.Attribute) and value.left.attr == "dtype"
            and isinstance(value.left.value, ast.Name) and value.left.value.id == target
            and ctx.qualname(value.comparators[0]) in FLOAT_DTYPES
        ):
            return True
    return False
