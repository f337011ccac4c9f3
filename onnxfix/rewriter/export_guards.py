"""Code an export never runs, decided from the source around it: the branches an export guard
keeps from one exporter (`if not torch.compiler.is_exporting():`, `if torch.jit.is_tracing():`,
and the code after such a guard's early return), and training-only code (`if self.training:`,
loss and scripting branches), since models are exported in eval mode.
"""

from __future__ import annotations

import ast
from typing import Iterable, Iterator

from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.tree_walk import walk

# Calls that tell the exporters apart while a model is exported (measured on torch 2.13): True
# under the dynamo exporter (torch.export) and False under the legacy one, or the reverse.
# torchvision's `_is_tracing()` is `torch._C._get_tracing_state()`, the TorchScript tracer's
# state, like torch.jit.is_tracing() (tests/test_export_guards.py measures all three).
TRUE_UNDER_DYNAMO_EXPORT = frozenset({
    "is_exporting", "is_compiling", "is_dynamo_compiling", "is_torchdynamo_exporting", "is_torchdynamo_compiling",
})
TRUE_UNDER_LEGACY_EXPORT = frozenset({"is_tracing", "_is_tracing", "_get_tracing_state"})
# True under both exporters while they trace (torch.onnx.__init__: the legacy exporter's
# GLOBALS.in_onnx_export or the dynamo exporter's _flags._is_onnx_exporting), False in eager:
# the body of `if not torch.onnx.is_in_onnx_export():` is never exported (the ONX522 helpers).
TRUE_UNDER_BOTH_EXPORTS = frozenset({"is_in_onnx_export"})
EXPORTERS = frozenset({"dynamo", "legacy"})


def exporters_skipping(node: ast.AST, ancestors: Iterable[ast.AST]) -> frozenset[str]:
    """Exporters under which ``node`` never runs, from the export guards around it: the body of
    `if not torch.compiler.is_exporting():` (or of `if torch.jit.is_tracing():`) is skipped by
    the dynamo exporter, the other branch by the legacy one, and so is the code after `if
    torchvision._is_tracing(): return ...`. ``ancestors``: innermost first."""
    skipped: set[str] = set()
    child = node
    for ancestor in ancestors:
        skipped |= skipped_at(child, ancestor)
        child = ancestor
    return frozenset(skipped)


def skipped_at(child: ast.AST, ancestor: ast.AST) -> set[str]:
    """The exporters the guards of ``ancestor`` keep from its direct ``child`` (one step of
    ``exporters_skipping``)."""
    skipped: set[str] = set()
    if isinstance(ancestor, (ast.If, ast.IfExp)):
        in_body = child in ancestor.body if isinstance(ancestor, ast.If) else child is ancestor.body
        in_else = child in ancestor.orelse if isinstance(ancestor, ast.If) else child is ancestor.orelse
        test = ancestor.test
        conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        for conjunct in conjuncts if in_body else [test] if in_else else []:
            runs_under = _export_guard(conjunct)  # the exporters under which the test holds
            if runs_under is not None:
                skipped.update(EXPORTERS - runs_under if in_body else runs_under)
    if isinstance(ancestor, ast.BoolOp) and child in ancestor.values:
        # `guard or check` (`assert torch.onnx.is_in_onnx_export() or n.item() <= k`): the
        # operands after a guard run only where it is false; after it in an `and`, true
        for earlier in ancestor.values[: ancestor.values.index(child)]:
            runs_under = _export_guard(earlier)
            if runs_under is not None:
                skipped.update(runs_under if isinstance(ancestor.op, ast.Or) else EXPORTERS - runs_under)
    skipped.update(_skipped_by_early_exits(child, ancestor))
    return skipped


def _skipped_by_early_exits(statement: ast.AST, block_owner: ast.AST) -> Iterator[str]:
    """`if <guard>: ...; return ...` before ``statement`` in the same block: the statement runs
    only where the guard is false (as in an `else:`)."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(block_owner, name, None)
        if isinstance(block, list) and statement in block:
            for earlier in block[: block.index(statement)]:
                if isinstance(earlier, ast.If) and not earlier.orelse and _always_exits(earlier.body):
                    runs_under = _export_guard(earlier.test)
                    if runs_under is not None:
                        yield from runs_under
            return


def _always_exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def _export_guard(test: ast.expr) -> frozenset[str] | None:
    """The exporters under which ``test`` is true, for an export guard; None for other tests."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _export_guard(test.operand)
        return None if inner is None else EXPORTERS - inner
    if isinstance(test, ast.BoolOp):
        # `not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting()` (the legacy-only
        # helpers' guard): true under dynamo only. Every operand must be a guard.
        operands = [_export_guard(value) for value in test.values]
        if any(o is None for o in operands):
            return None
        combine = frozenset.union if isinstance(test.op, ast.Or) else frozenset.intersection
        return combine(*operands)
    if isinstance(test, ast.Call) and not test.args and not test.keywords:
        func = test.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in TRUE_UNDER_DYNAMO_EXPORT:
            return frozenset({"dynamo"})
        if name in TRUE_UNDER_LEGACY_EXPORT:
            return frozenset({"legacy"})
        if name in TRUE_UNDER_BOTH_EXPORTS:
            return EXPORTERS
    return None


def in_training_only_code(node: ast.AST, ancestors: Iterable[ast.AST]) -> bool:
    """``node`` sits where only training (or loss, or scripting) code runs: the body of `if
    self.training:` or the `else` of `if not self.training:`. Models are exported in eval mode,
    so that code is never traced. ``ancestors``: innermost first."""
    child = node
    for ancestor in ancestors:
        if isinstance(ancestor, ast.If):
            training = True if loss_branch(ancestor) else training_test(ancestor.test)
            if (training is True and child in ancestor.body) or (training is False and child in ancestor.orelse):
                return True
        child = ancestor
    return False


def training_test(test: ast.expr) -> bool | None:
    """True if the test can only hold in training mode (or while computing a loss, or under
    TorchScript scripting), False if only in eval mode."""
    if isinstance(test, ast.Attribute) and test.attr in ("training", "is_training"):
        return True
    if _loss_only_test(test):  # losses are not exported: `if return_loss:`, `if labels is not None:`
        return True
    if _scripting_only_test(test):  # `elif torch.jit.is_scripting():` never runs under export
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = training_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(training_test(v) is True for v in test.values) else None
    return None


def _scripting_only_test(test: ast.expr) -> bool:
    parts = dotted_parts(test.func) if isinstance(test, ast.Call) else None
    return bool(parts) and parts[-1] == "is_scripting"


def loss_branch(node: ast.If) -> bool:
    """`if future_values is not None: ... loss = ...` (TimesFM): a branch on an optional input
    that computes `loss` is the loss computation for targets, which an exported model is not
    given (like `if labels is not None:`, whatever the targets are called)."""
    test = node.test
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    ):
        return False
    stack = list(node.body)
    while stack:
        statement = stack.pop()
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        targets = ()
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = (statement.target,)
        if any(isinstance(t, ast.Name) and t.id == "loss" for t in targets):
            return True
        stack.extend(child for child in ast.iter_child_nodes(statement) if isinstance(child, ast.stmt))
    return False


def _loss_only_test(test: ast.expr) -> bool:
    if isinstance(test, ast.Name) and test.id == "return_loss":
        return True
    return (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Name) and test.left.id == "labels"
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    )


ANY_EXPORT_GUARD = TRUE_UNDER_DYNAMO_EXPORT | TRUE_UNDER_LEGACY_EXPORT | TRUE_UNDER_BOTH_EXPORTS


def guard_call_name(node: ast.AST) -> str | None:
    """'is_tracing' for a call of an export guard, whatever its spelling (`torch.jit.is_tracing()`,
    an imported `is_torchdynamo_compiling()`)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name if name in ANY_EXPORT_GUARD else None


def is_guard_call(node: ast.AST) -> bool:
    return guard_call_name(node) is not None


def consults_export_guard(test: ast.expr) -> bool:
    """The test calls an export guard anywhere (`not torch.compiler.is_exporting() and ...`):
    already decided for the exporters, by its author or by a fix."""
    return any(is_guard_call(n) for n in walk(test))


def negated_guard_call(node: ast.AST, names: frozenset[str] = ANY_EXPORT_GUARD) -> ast.Call | None:
    """The guard call of `not <export guard>()` (one of ``names``, no arguments)."""
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return None
    call = node.operand
    return call if guard_call_name(call) in names and not call.args else None


def runs_only_while_exporting(node: ast.AST, ancestors: Iterable[ast.AST]) -> bool:
    """In the body of an `if` whose test (or a conjunct of its `and`) is false in eager, where
    every export guard is false (`if torch.onnx.is_in_onnx_export():`): eager never runs it.
    ``ancestors``: innermost first."""
    child = node
    for ancestor in ancestors:
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            test = ancestor.test
            conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
            if any(_in_eager(c) is False for c in conjuncts):
                return True
        child = ancestor
    return False


def _in_eager(test: ast.expr) -> bool | None:
    """An export guard's value in eager (every guard call is false there); None for other tests."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _in_eager(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_in_eager(v) for v in test.values]
        if any(v is None for v in values):
            return None
        return any(values) if isinstance(test.op, ast.Or) else all(values)
    return False if _export_guard(test) is not None and isinstance(test, ast.Call) else None


def in_training_branch(node: ast.AST, ctx) -> bool:
    """Inside `if self.training:` (or another training/loss-only branch, as reachability
    decides them): models are exported in eval mode, so that code is not traced."""
    return in_training_only_code(node, ctx.ancestors(node))
