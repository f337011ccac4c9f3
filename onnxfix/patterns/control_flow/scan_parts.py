"""What the ONX603 scan rewrite's parts share: the plan of one loop's scan, and how the loop
indexes its tensors (`x[:, t]`: one integer position, `:` elsewhere)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.tree_walk import walk


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
    masked: set[int] = field(default_factory=set)  # id(statement): `t[mask] = number` on a copy the step made
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


def leading_index(index: ast.expr, name: str) -> int | None:
    """The dim `name` selects in `X[name, :n]`, `X[:, name, 0, ..., a:b]`: the position of `name`
    with only `:` before it and basic indices after it (slices with any bounds, integer literals,
    `None`, `...`), so `X[<those>]` is `X.select(dim, name)[<the others>]`; None otherwise (a
    tensor or list after it would make the indexing advanced, which places dims differently)."""
    if not isinstance(index, ast.Tuple):
        return None
    position = next((k for k, e in enumerate(index.elts) if isinstance(e, ast.Name) and e.id == name), None)
    if position is None or not all(_bare_slice(e) for e in index.elts[:position]):
        return None
    return position if all(_basic_index(e) for e in index.elts[position + 1:]) else None


def _bare_slice(node: ast.expr) -> bool:
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


def _basic_index(node: ast.expr) -> bool:
    if isinstance(node, ast.Slice):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis or type(node.value) is int)


def index_element(index: ast.Tuple, name: str) -> ast.expr:
    return next(e for e in index.elts if isinstance(e, ast.Name) and e.id == name)


def substituted(node: ast.AST, replacements: dict[int, str], ctx: FunctionContext) -> str:
    source = ctx.file.source
    base = source.span(node)[0]
    text = ctx.segment(node)
    spans = sorted(((source.span(n), replacements[id(n)]) for n in walk(node) if id(n) in replacements),
                   key=lambda item: (item[0][0], -item[0][1]))
    outermost: list[tuple[tuple[int, int], str]] = []
    for span, new in spans:  # a replaced subscript inside another's text is part of that one's replacement
        if not outermost or span[0] >= outermost[-1][0][1]:
            outermost.append((span, new))
    for (start, end), new in reversed(outermost):
        text = text[:start - base] + new + text[end - base:]
    return text


def appended(statement: ast.stmt) -> tuple[str, ast.expr, ast.Name] | None:
    """(list name, value, the list's Name node) of `out.append(v)` or `out += [v]` (norse's Lift)."""
    if (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "append"
            and isinstance(statement.value.func.value, ast.Name) and len(statement.value.args) == 1
            and not statement.value.keywords and not isinstance(statement.value.args[0], ast.Starred)):
        return statement.value.func.value.id, statement.value.args[0], statement.value.func.value
    if (isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add)
            and isinstance(statement.target, ast.Name) and isinstance(statement.value, ast.List)
            and len(statement.value.elts) == 1 and not isinstance(statement.value.elts[0], ast.Starred)):
        return statement.target.id, statement.value.elts[0], statement.target
    return None


def appended_list(statement: ast.stmt) -> str | None:
    found = appended(statement)
    return found[0] if found is not None else None


def tuple_bound(name: str, ctx: FunctionContext) -> bool:
    """``name`` is bound in the function to a tuple literal and never to a list literal
    (`hidden = (h, c)`: an LSTM cell's state)."""
    values = [s.value for s in walk(ctx.fn.node) if isinstance(s, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)]
    return any(isinstance(v, ast.Tuple) for v in values) and not any(isinstance(v, ast.List) for v in values)


def counts_tensor_rows(node: ast.For, ctx: FunctionContext) -> bool:
    """`for i in range(x.shape[0])` / `range(x.size(0))` of a tensor `x`."""
    loop = node.iter
    if not (isinstance(loop, ast.Call) and isinstance(loop.func, ast.Name) and loop.func.id == "range" and loop.args):
        return False
    bound = loop.args[-1] if len(loop.args) <= 2 else None
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape":
        return bool(ctx.tensors.is_tensor(bound.value.value))
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and bound.func.attr == "size" and bound.args:
        return bool(ctx.tensors.is_tensor(bound.func.value))
    return False


def passed_a_list(value: ast.expr, ctx: FunctionContext) -> bool:
    """A parameter some call site of the file binds to a list or tuple display, or to a name bound
    only to one (`fs = [x, x[..., ::2, ::2]]; make_anchors(fs, strides)`): a sequence, no tensor."""
    if not (isinstance(value, ast.Name) and ctx.is_parameter(value.id)):
        return False
    for caller, argument in ctx.parameter_bindings(value.id) or ():
        if isinstance(argument, ast.Name):
            bound = caller.assignments(argument.id)
            if bound and all(isinstance(b, (ast.List, ast.Tuple, ast.ListComp)) for b in bound):
                return True
        elif isinstance(argument, (ast.List, ast.Tuple, ast.ListComp)):
            return True
    return False
