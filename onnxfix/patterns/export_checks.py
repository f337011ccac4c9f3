"""Checks skipped while exporting: an `assert` on a tensor value, shared by the rules that find
one (ONX201's `.item()` in an assert, ONX601's assert on a tensor condition); and an `if` test
rewritten so that both exporters take, or skip, its body while eager tests as before."""

from __future__ import annotations

import ast
import itertools

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import in_training_branch
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
    is skipped (the legacy trace never recorded it)."""
    return _skipped_while_exporting(check, ctx, "{guard} or {test}", OR)


def skip_raise_when_exporting(check: ast.If, ctx: FunctionContext) -> Fix | None:
    """`if bad: raise ...` -> `if not torch.onnx.is_in_onnx_export() and bad: raise ...`: the same
    test and error in eager, the check skipped while either exporter traces."""
    return _skipped_while_exporting(check, ctx, "not {guard} and {test}", AND)


def _skipped_while_exporting(check: ast.Assert | ast.If, ctx: FunctionContext, form: str, level: int) -> Fix | None:
    """The check's test behind `torch.onnx.is_in_onnx_export()` (``form``, the test parenthesized
    where it binds looser than ``level``). None where TorchScript compiles the function (it cannot
    compile `is_in_onnx_export`: a scripted caller or module counts) and where the test binds a name
    with `:=` (not bound while exporting)."""
    if ctx.compiled_by_torchscript or any(isinstance(n, ast.NamedExpr) for n in walk(check.test)):
        return None
    torch, imports = ctx.torch_name()
    guard = f"{torch}.onnx.is_in_onnx_export()"
    text = form.format(guard=guard, test=operand(ctx.segment(check.test), check.test, level))
    return Fix(f"Skip the check while exporting (`{form.format(guard=guard, test='...')}`)",
               (ctx.replace(check.test, text),), safe=True, imports=imports)


def failed_in_run(node: ast.Assert, ctx: FunctionContext) -> bool:
    """A run's export stopped on a data-dependent guard at a line of this assert's test (its
    call chain: exporter/run_evidence.py guard_lines)."""
    evidence = ctx.file.evidence
    if evidence is None or any(line == node.lineno for line, _ in evidence.evaluated):
        return False  # the run evaluated torch's suggested checks here: ONX611's (suggested_check.py)
    return evidence.guarded(node.test, ("data_dependent",))


def raised_in_run(node: ast.If, ctx: FunctionContext) -> bool:
    """An input check (`if <test>: raise ...`, nothing else) at whose lines a run's export stopped on
    an exception (exporter/run_evidence.py: the failure's innermost user frame), not skipped while
    exporting already."""
    evidence = ctx.file.evidence
    if evidence is None or not evidence.raised or in_training_branch(node, ctx):
        return False
    if node.orelse or len(node.body) != 1 or not isinstance(node.body[0], ast.Raise):
        return False
    return not (skipped_by_and(node.test) or skipped_by_both(node.test)) and evidence.guarded(node, ("raised",))


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
