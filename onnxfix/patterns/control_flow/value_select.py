"""ONX601 where `torch.where` cannot take the branches as they are (several statements each, an
early `return` before the rest of the function): the branches become nested functions and
`_onnx_value_select` runs them. In eager it is the `if` itself; while either exporter traces, both
branches run and `torch.where` selects each output (SB3's recurrent policy: `if th.all(episode_starts
== 0.0):` a fast path over the whole sequence, else a loop resetting states)."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.control_flow.conditions import python_container
from onnxfix.patterns.control_flow.nested_branches import (
    branch_plan, cond_fix, early_return_fix, early_return_rest,
)
from onnxfix.patterns.control_flow.value_cond import Predicate, value_predicate
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Fix, Helper
from onnxfix.rewriter.statements import is_elif
from onnxfix.rewriter.tree_walk import walk

VALUE_SELECT = Helper("_onnx_value_select", helper_source("value_select"))
TITLE = "Keep both branches; select with `torch.where` under export"
# One pair of names for every `if` (not the line, as ONX613's: a helper written in an earlier round
# shifts the lines): each pair is defined right before the one call that uses it, so a later pair
# of the same names in the same function is a new binding, used after the earlier call is done.
NAMES = ("_onnx_when_true", "_onnx_when_false")


def value_select_fix(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, message tail) for an `if` on a tensor's value whose branches bind names the code after
    reads, or return (both, or an early `return` before the function's last `return`), or None."""
    if ctx.compiled_by_torchscript or is_elif(node, ctx) or consults_export_guard(node.test):
        return None
    tested = value_predicate(node.test, ctx)
    if tested is None:
        return None
    pred = Predicate(tested.text, VALUE_SELECT, tested.exact)
    plan = branch_plan(node, ctx)
    if plan is not None:
        outputs, _, returns = plan
        values = _returned(node.body + node.orelse) if returns else _assigned(node.body + node.orelse, outputs)
        fix = cond_fix(node, *plan, pred, ctx, TITLE, NAMES) if _selectable(values) else None
    else:
        rest = early_return_rest(node, ctx)
        selectable = rest is not None and _selectable(_returned(node.body + rest))
        fix = early_return_fix(node, rest, pred, ctx, TITLE, NAMES) if selectable else None
    if fix is None:
        return None
    why = ("; both branches become nested functions: eager runs the one the value picks, as before, and while "
           "either exporter traces both run and `torch.where` selects each output (where they agree in shape "
           "and dtype; the `if` as before otherwise)")
    if not pred.exact:
        why += (" (unsafe: the tested value is not the test's: a dropped `.item()` compares in the tensor's dtype, "
                "`&`/`|` evaluate every operand, or a flag now tested first skips a call in the tensor test)")
    return fix, why


def _selectable(values: list[ast.expr]) -> bool:
    """No value the branches give is visibly a Python number, string, None or container (the helper
    would only fall back to the `if`: onnx2torch's `shape = [...]`, a `scale = 3.0` flag)."""
    return not any(isinstance(v, ast.Constant) or python_container(v) for v in values)


def _returned(statements: list[ast.stmt]) -> list[ast.expr]:
    """The values the `return`s among the statements give (a tuple's elements, nested ones too: selected one by one)."""
    def leaves(value: ast.expr) -> list[ast.expr]:
        return [leaf for e in value.elts for leaf in leaves(e)] if isinstance(value, ast.Tuple) else [value]

    return [leaf for node in (n for s in statements for n in walk(s))
            if isinstance(node, ast.Return) and node.value is not None for leaf in leaves(node.value)]


def _assigned(statements: list[ast.stmt], outputs: list[str]) -> list[ast.expr]:
    """The values the statements assign to one of ``outputs`` by a plain `name = value`."""
    return [node.value for node in (n for s in statements for n in walk(s))
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in outputs for t in node.targets)]
