"""What the ONX603 scan rewrite's parts share: the plan of one loop's scan, and how the loop
indexes its tensors (`x[:, t]`: one integer position, `:` elsewhere)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from onnxfix.rewriter.context import FunctionContext


@dataclass
class ScanPlan:
    index: str  # "" when the loop iterates over the slices themselves
    start: ast.expr | None
    stop: ast.expr | None
    sliced: dict[tuple[str, int], str] = field(default_factory=dict)  # (tensor text, dim) -> step name
    replaced: dict[int, str] = field(default_factory=dict)  # id(subscript) -> step name
    # list name (appended) or id(statement) (`out[:, t] = v`) -> per-step output name, in step order
    outputs: dict[str | int, str] = field(default_factory=dict)
    writes: dict[int, tuple[ast.Subscript, int]] = field(default_factory=dict)  # id(statement) -> (target, dim)
    carried: list[str] = field(default_factory=list)
    counted: bool = False  # no tensor is stepped: the scan runs over an arange of the range's bounds


def indexed_dim(index: ast.expr, name: str) -> int | None:
    """The dim `name` selects in `X[name]`, `X[:, name]`, `X[..., name, :]` (negative from the
    end after an ellipsis); None for any other subscript."""
    if isinstance(index, ast.Name):
        return 0 if index.id == name else None
    if not isinstance(index, ast.Tuple):
        return None
    position = next((k for k, e in enumerate(index.elts) if isinstance(e, ast.Name) and e.id == name), None)
    if position is None:
        return None
    ellipsis_at = None
    for k, element in enumerate(index.elts):
        if k == position:
            continue
        if isinstance(element, ast.Constant) and element.value is Ellipsis and ellipsis_at is None:
            ellipsis_at = k
        elif not (isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None):
            return None
    if ellipsis_at is not None and ellipsis_at < position:
        return position - len(index.elts)
    return position


def index_element(index: ast.Tuple, name: str) -> ast.expr:
    return next(e for e in index.elts if isinstance(e, ast.Name) and e.id == name)


def substituted(node: ast.AST, replacements: dict[int, str], ctx: FunctionContext) -> str:
    source = ctx.file.source
    base = source.span(node)[0]
    text = ctx.segment(node)
    spans = sorted(((source.span(n), replacements[id(n)]) for n in ast.walk(node) if id(n) in replacements), reverse=True)
    for (start, end), new in spans:
        text = text[:start - base] + new + text[end - base:]
    return text


def appended_list(statement: ast.stmt) -> str | None:
    if (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "append"
            and isinstance(statement.value.func.value, ast.Name) and len(statement.value.args) == 1
            and not statement.value.keywords):
        return statement.value.func.value.id
    return None
