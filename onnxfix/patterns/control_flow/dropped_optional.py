"""ONX601: an optional tensor dropped when the data says it does nothing.

transformers' Mamba-family models (Bamba, Jamba, Zamba, Falcon-H1, GraniteMoeHybrid, ...) drop
the padding mask when every token is attended:

    mamba_mask = attention_mask
    if cache_position[0] > 0 or (attention_mask is not None and torch.all(attention_mask == 1)):
        mamba_mask = None

Phi-4-multimodal's vision tower has the same shortcut with the general path in an `else`:
`if not torch.any(~patch_attention_mask): attention_mask = None else: attention_mask = <4-D mask>`.

The test reads tensor values: torch.export cannot decide it (GuardOnDataDependentSymNode) and the
legacy tracer freezes the example's answer (an all-ones example drops the mask for every input).
`None` is no tensor, so `torch.where` cannot select it. The body only sets names to `None`: a
shortcut that skips work the general path would do to no effect (multiplying by a mask of ones).
Under export the shortcut is skipped, and the general path, which serves every input, is exported:

    if not (torch.jit.is_tracing() or torch.compiler.is_exporting()) and (<test>):
        mamba_mask = None

Eager evaluates the same test in the same order. Unsafe: the exported model keeps the value where
eager drops it, which is exact only when the kept value is then a no-op (`onnxfix export --fix`
checks the exported model against eager on inputs of both kinds).
"""

from __future__ import annotations

import ast

from onnxfix.patterns.messages import test_skippable_when_exporting
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import is_elif
from onnxfix.rewriter.tree_walk import walk

WHY = ("; the body only drops values (`= None`), a shortcut the general path covers: skip it while exporting, so "
       "the exported model keeps the value for every input (unsafe: exact only where the kept value is then a "
       "no-op, as a mask of ones is)")


def dropped_optional_fix(node: ast.If, ctx: FunctionContext) -> tuple[Fix, str] | None:
    """(fix, why) for `if <tensor test>: a = None`, each dropped name bound before or by an `else`
    (Phi-4-multimodal's vision tower: `else: attention_mask = _prepare_4d_attention_mask(...)`, the
    general path that now runs under export)."""
    if not node.body or ctx.compiled_by_torchscript or consults_export_guard(node.test) or is_elif(node, ctx):
        return None
    if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        return None  # an `elif`: the chain's next test would run under export
    names = [_dropped_name(statement) for statement in node.body]
    if None in names or not test_skippable_when_exporting(node.test):
        return None
    bound_by_else = {target.id for statement in node.orelse for target in walk(statement)
                     if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)}
    if not all(name in bound_by_else or _bound_before(name, node, ctx) for name in names):
        return None  # unbound under export when the shortcut was its only binding
    torch, imports = ctx.torch_name()
    exporting = f"{torch}.jit.is_tracing() or {torch}.compiler.is_exporting()"
    test = ctx.segment(node.test)
    if not isinstance(node.test, (ast.Compare, ast.Call, ast.Attribute, ast.Name, ast.Subscript)) and not (
            isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And)):
        test = f"({test})"  # `or`, `not`, a conditional expression: looser than `and`
    fix = Fix("Skip the shortcut that drops the value while exporting",
              (ctx.replace(node.test, f"not ({exporting}) and {test}"),), safe=False, imports=imports)
    return fix, WHY


def _dropped_name(statement: ast.stmt) -> str | None:
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant) and statement.value.value is None):
        return statement.targets[0].id
    return None


def _bound_before(name: str, node: ast.If, ctx: FunctionContext) -> bool:
    """A parameter of the function, or a name assigned in it on a line before the `if`."""
    function = ctx.fn.node
    arguments = function.args
    if name in {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}:
        return True
    return any(isinstance(target, ast.Name) and target.id == name and target.lineno < node.lineno
               for statement in walk(function) if isinstance(statement, (ast.Assign, ast.AnnAssign))
               for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target]))
