"""Checks skipped while exporting: an `assert` on a tensor value, shared by the rules that find
one (ONX201's `.item()` in an assert, ONX601's assert on a tensor condition); and an `if` test
rewritten so that both exporters take, or skip, its body while eager tests as before."""

from __future__ import annotations

import ast
import itertools

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import AND, OR, operand
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.tree_walk import walk

# calls that tell export from eager, as the first operand of a check that skips the rest
EXPORT_CHECKS = ("is_exporting", "is_compiling", "is_in_onnx_export", "is_tracing", "is_scripting")
# of those, the ones true while torch.export traces (`is_tracing() or ...` still runs the test there)
EXPORT_SKIPS = ("is_exporting", "is_compiling", "is_in_onnx_export")
# the ones true while the legacy exporter traces
_LEGACY_SKIPS = ("is_tracing", "is_in_onnx_export")


def test_under_export(test: ast.expr, ctx: FunctionContext, taken: bool) -> tuple[Edit, tuple[str, ...]]:
    """(edit, imports) making both exporters take the `if`'s body (`torch.jit.is_tracing() or
    torch.compiler.is_exporting() or <test>`) or skip it (`not (...) and <test>`). Both calls are
    False in eager (and under torch.compile), so eager evaluates the same test in the same order."""
    torch_name, imports = ctx.torch_name()
    exporting = f"{torch_name}.jit.is_tracing() or {torch_name}.compiler.is_exporting()"
    text = ctx.segment(test)
    new = (f"{exporting} or {operand(text, test, OR)}" if taken
           else f"not ({exporting}) and {operand(text, test, AND)}")
    return ctx.replace(test, new), imports


def skip_assert_when_exporting(check: ast.Assert, ctx: FunctionContext) -> Fix | None:
    """`assert n.max().item() <= k, msg` -> `assert torch.onnx.is_in_onnx_export() or
    n.max().item() <= k, msg`. In eager `is_in_onnx_export()` is False, so the same test runs and
    fails with the same message; both exporters set it while tracing, so the data-dependent check
    is skipped (the legacy trace never recorded it). None where TorchScript compiles the function
    (it cannot compile `is_in_onnx_export`: a scripted caller or module counts) and where the test
    binds a name with `:=` (not bound while exporting)."""
    if ctx.compiled_by_torchscript or any(isinstance(n, ast.NamedExpr) for n in walk(check.test)):
        return None  # skipped while exporting, a `:=` in the test would leave its name unbound
    torch, imports = ctx.torch_name()
    test = check.test
    text = ctx.segment(test)
    if isinstance(test, (ast.IfExp, ast.Lambda, ast.NamedExpr)):
        text = f"({text})"  # binds looser than `or`
    guard = f"{torch}.onnx.is_in_onnx_export()"
    return Fix(f"Skip the check while exporting (`{guard} or ...`)",
               (ctx.replace(test, f"{guard} or {text}"),), safe=True, imports=imports)


def skip_raise_when_exporting(check: ast.If, ctx: FunctionContext) -> Fix | None:
    """`if bad: raise ...` -> `if not torch.onnx.is_in_onnx_export() and (bad): raise ...`: in eager
    `is_in_onnx_export()` is False, so the same test runs and raises the same error; both exporters set
    it while tracing, so the check is skipped there. None where TorchScript compiles the function and
    where the test binds a name with `:=` (as skip_assert_when_exporting)."""
    if ctx.compiled_by_torchscript or any(isinstance(n, ast.NamedExpr) for n in walk(check.test)):
        return None
    torch, imports = ctx.torch_name()
    test = check.test
    text = ctx.segment(test)
    if isinstance(test, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)) and not (
            isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        text = f"({text})"  # binds looser than `and`
    guard = f"{torch}.onnx.is_in_onnx_export()"
    return Fix(f"Skip the check while exporting (`not {guard} and ...`)",
               (ctx.replace(test, f"not {guard} and {text}"),), safe=True, imports=imports)


def skipped_by_or(test: ast.expr) -> bool:
    """`torch.onnx.is_in_onnx_export() or ...`, `torch.jit.is_tracing() or torch.compiler.is_exporting()
    or ...` (test_under_export's): the operands after the checks never run under torch.export."""
    return any(is_export_check(value, EXPORT_SKIPS) for value in _leading_checks(test))


def skipped_by_or_under_both(test: ast.expr) -> bool:
    """The same under both exporters: `torch.onnx.is_in_onnx_export() or ...`, `torch.jit.is_tracing()
    or torch.compiler.is_exporting() or ...` (`torch.compiler.is_exporting() or ...` alone still runs
    the rest while the legacy exporter traces)."""
    leading = _leading_checks(test)
    return any(is_export_check(v, EXPORT_SKIPS) for v in leading) and any(is_export_check(v, _LEGACY_SKIPS) for v in leading)


def _leading_checks(test: ast.expr) -> list[ast.expr]:
    """The export checks an `or` starts with."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)):
        return []
    return list(itertools.takewhile(lambda value: is_export_check(value, EXPORT_SKIPS + _LEGACY_SKIPS), test.values))


def skipped_by_and(test: ast.expr) -> bool:
    """`not torch.compiler.is_exporting() and ...`: the operands after it never run under export."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return False
    first = test.values[0]  # `not torch.jit.is_tracing() and ...` still runs the rest under torch.export
    return isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.Not) and is_export_check(first.operand, EXPORT_SKIPS)


def skipped_by_both(test: ast.expr) -> bool:
    """`not (torch.jit.is_tracing() or torch.compiler.is_exporting()) and ...` (or `not
    torch.onnx.is_in_onnx_export() and ...`): the operands after it run under neither exporter."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
        return False
    first = test.values[0]
    if not (isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.Not)):
        return False
    checks = first.operand.values if isinstance(first.operand, ast.BoolOp) and isinstance(
        first.operand.op, ast.Or) else [first.operand]
    return (any(is_export_check(c, EXPORT_SKIPS) for c in checks)
            and any(is_export_check(c, _LEGACY_SKIPS) for c in checks))


def is_export_check(node: ast.expr, names: tuple[str, ...]) -> bool:
    """A call of one of ``names`` (`torch.compiler.is_exporting()`, `is_in_onnx_export()`, ...)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in names)


def constant_message(message: ast.expr | None) -> bool:
    """No message, or one computed from literals only (`"bad"`, `"x" * 3`, an f-string of
    constants): torch.export keeps such an assert as a runtime assertion."""
    return message is None or not any(isinstance(n, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
                                      for n in walk(message))
