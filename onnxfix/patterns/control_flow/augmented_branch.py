"""ONX601's fix for an `if` around one augmented assignment: the update selected with torch.where."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import Condition
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import SYMBOLS
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import comments_outside, parenthesize, replace_statements

_AUGMENTED = {op: SYMBOLS[op] for op in (ast.Add, ast.Sub, ast.Mult, ast.Div)}


def augmented_fix(node: ast.If, condition: Condition, ctx: FunctionContext) -> Fix | None:
    """`if flag: out += 1.` (no else, the one statement) -> `out = torch.where(flag, out + 1., out)`.
    Unsafe with every torch.where fix, and more: `+=` wrote into the tensor, where rebinds the name
    to a new one (another name for the same tensor no longer sees the change)."""
    if node.orelse or len(node.body) != 1:
        return None
    only = node.body[0]
    if not (isinstance(only, ast.AugAssign) and isinstance(only.target, ast.Name) and type(only.op) in _AUGMENTED):
        return None
    parent = ctx.parent(node)
    if isinstance(parent, ast.If) and node in parent.orelse:
        return None  # an `elif`: replacing it would detach it from its `if`
    comments = comments_outside(ctx, node, [node.test, only.value], node)
    if comments is None:
        return None
    torch, imports = ctx.torch_name()
    name = only.target.id
    updated = f"{name} {_AUGMENTED[type(only.op)]} {parenthesize(ctx.segment(only.value), only.value)}"
    edit = replace_statements(ctx, node, node, f"{name} = {torch}.where({condition.where_text}, {updated}, {name})", comments)
    return Fix("Select with `torch.where` (evaluates the update)", (edit,), safe=False, imports=imports)
