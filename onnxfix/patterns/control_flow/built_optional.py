"""ONX601: an optional value built only when the data says it is needed, None otherwise.

ChatGLM2/3's `ChatGLMModel.forward` (optimum-intel patches it for export) builds the attention
mask only when some token is padded, and attention runs causal without one otherwise:

    if full_attention_mask is None:
        if (attention_mask is not None and not attention_mask.all()) or (past_key_values and seq_length != 1):
            full_attention_mask = self.get_masks(input_ids, past_key_values, padding_mask=attention_mask)

The test reads tensor values: torch.export cannot decide it (GuardOnDataDependentSymNode) and the
legacy tracer freezes the example's answer (an all-ones example keeps None for every input, so
left padding is ignored). None is no tensor, so `torch.where` cannot select it. It is the mirror of
dropped_optional.py's shortcut (a value set to None when the data says it does nothing): under
export each operand of the test that reads tensor values is taken as true (the Python operands,
`attention_mask is not None`, still decide, so an export without the mask is what it was):

    if (attention_mask is not None and (torch.jit.is_tracing() or torch.compiler.is_exporting()
            or not attention_mask.all())) or (past_key_values and seq_length != 1):

Eager evaluates the same test in the same order. Unsafe: the exported model builds the value where
eager keeps None, which is exact only where a value built from data that did not need it acts as
None does (a mask of ones beside the causal triangle the None path applies anyway); `onnxfix
export --fix` checks the exported model against eager on inputs of both kinds.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import holds_none_before, tensor_condition
from onnxfix.patterns.export_checks import test_under_export
from onnxfix.patterns.messages import test_skippable_when_exporting
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.statements import is_elif, single_name_assignment
from onnxfix.rewriter.tree_walk import walk
from onnxfix.rewriter.none_defaults import is_none_literal

WHY = ("; the body only builds values that are None otherwise (`= None` before it), a value the data may not "
       "need: build it while exporting too, so the exported model has it for every input (unsafe: exact only "
       "where the value built from such data acts as None does, as a mask of ones does)")


def built_optional_fix(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, why) for `if <tensor test>: a = <value>` with no `else`, `a` None before it (a
    parameter defaulting to None, or `a = None`)."""
    if not node.body or node.orelse or ctx.compiled_by_torchscript or consults_export_guard(node.test) \
            or is_elif(node, ctx) or not test_skippable_when_exporting(node.test):
        return None
    names = [single_name_assignment(statement) for statement in node.body]
    if None in names or any(is_none_literal(statement.value) for statement in node.body):
        return None
    if not all(holds_none_before(name, node, ctx) for name in names):
        return None
    edits, imports = _tensor_tests_taken(node.test, ctx)
    if not edits:
        return None
    return Fix("Build the value while exporting too", tuple(edits), safe=False, imports=imports), WHY


def _tensor_tests_taken(test: ast.expr, ctx: FunctionContext):
    """The edits that make each operand of the test's `and` / `or` that reads tensor values true
    under export (`mask is not None and (torch.jit.is_tracing() or torch.compiler.is_exporting() or
    not mask.all())`); the Python operands (`mask is not None`) decide as before, so an export with
    no mask still skips the body. None where a tensor test sits under a `not` of an `and` / `or`
    (true there would be false for the whole)."""
    if not isinstance(test, ast.BoolOp):
        if any(isinstance(n, ast.BoolOp) for n in walk(test)):
            return [], ()  # `not (mask is None or mask.all())`: its Python operands would not decide
        edit, imports = test_under_export(test, ctx, taken=True)
        return [edit], imports
    edits, imports = [], ()
    for leaf in _leaves(test):
        if leaf is None:
            return [], ()
        if tensor_condition(leaf, ctx) is not None:
            edit, imports = test_under_export(leaf, ctx, taken=True)
            edits.append(Edit(edit.start, edit.end, f"({edit.text})"))
    return edits, imports


def _leaves(test: ast.expr):
    """The operands of nested `and` / `or`s; None for one that negates an `and` / `or`."""
    for value in test.values:
        if isinstance(value, ast.BoolOp):
            yield from _leaves(value)
        elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) and isinstance(value.operand, ast.BoolOp):
            yield None
        else:
            yield value
