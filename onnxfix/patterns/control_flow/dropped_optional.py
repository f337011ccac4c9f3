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

from onnxfix.patterns.export_checks import test_under_export
from onnxfix.patterns.messages import test_skippable_when_exporting
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import is_elif

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
    bound_by_else = _assigned_names(node.orelse)
    if bound_by_else is None:
        return None  # an `else` that raises, returns or does more than bind names: not a general path
    if not all(name in bound_by_else or _bound_before(name, node, ctx) for name in names):
        return None  # unbound under export when the shortcut was its only binding
    edit, imports = test_under_export(node.test, ctx, taken=False)
    fix = Fix("Skip the shortcut that drops the value while exporting", (edit,), safe=False, imports=imports)
    return fix, WHY


def _dropped_name(statement: ast.stmt) -> str | None:
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant) and statement.value.value is None):
        return statement.targets[0].id
    return None


def _assigned_names(statements: list[ast.stmt]) -> set[str] | None:
    """The names an `else` of plain assignments binds (`attention_mask = _prepare_4d_attention_mask(...)`);
    None when it does anything else."""
    names: set[str] = set()
    for statement in statements:
        targets = statement.targets if isinstance(statement, ast.Assign) else (
            [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value is not None else None)
        if targets is None:
            return None
        for target in targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            if not all(isinstance(e, ast.Name) for e in elements):
                return None
            names.update(e.id for e in elements)
    return names


def _bound_before(name: str, node: ast.If, ctx: FunctionContext) -> bool:
    """A parameter of the function, or a name assigned a value by a statement that always runs
    before the `if`: one before it in its own block or in a block enclosing it (not one in a branch
    that may not run, nor in a nested function)."""
    if ctx.is_parameter(name):
        return True
    child: ast.AST = node
    for ancestor in ctx.ancestors(node):
        block = next((b for b in (getattr(ancestor, f, None) for f in ("body", "orelse", "finalbody"))
                      if isinstance(b, list) and child in b), None)
        if block is not None and any(_assigns(statement, name) for statement in block[:block.index(child)]):
            return True
        if ancestor is ctx.fn.node:
            return False
        child = ancestor
    return False


def _assigns(statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
    return (isinstance(statement, ast.AnnAssign) and statement.value is not None
            and isinstance(statement.target, ast.Name) and statement.target.id == name)
