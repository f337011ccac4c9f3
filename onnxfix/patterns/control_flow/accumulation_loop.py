"""ONX603: an accumulation over the rows, `acc = acc + f(x[i])` for `i` in `range(x.shape[0])`,
becomes `acc = acc + f(x).sum(0)` when `f` is elementwise in the row (unsafe: the sum adds in
another order than the loop)."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import is_row, loop_length_source, uses_name_elsewhere
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import comments_outside, replace_statements
from onnxfix.rewriter.tree_walk import walk

SUM_OPERATORS = {ast.Add: "+", ast.Sub: "-"}
ELEMENTWISE_FUNCTIONS = frozenset(
    {
        "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid",
        "relu", "square", "neg", "negative", "floor", "ceil", "round", "sign", "reciprocal",
    }
)
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def vectorised_accumulation(node: ast.For, ctx: FunctionContext) -> Fix | None:
    source_name = loop_length_source(node.iter)
    if source_name is None or node.orelse or len(node.body) != 1 or not isinstance(node.target, ast.Name):
        return None
    if not ctx.tensors.is_tensor(ast.Name(id=source_name, ctx=ast.Load())):
        return None
    index = node.target.id
    accumulator, operator, term = _accumulation(node.body[0])
    if accumulator is None or accumulator in (index, source_name):
        return None
    if not _elementwise_in(term, source_name, index, ctx) or uses_name_elsewhere(index, node, ctx):
        return None
    comments = comments_outside(ctx, node, [term])
    if comments is None:
        return None
    vectorised = _substitute_rows(ctx, term, source_name)
    if not isinstance(term, (ast.Name, ast.Subscript, ast.Call, ast.Attribute)):
        vectorised = f"({vectorised})"
    total = f"{vectorised}.sum(0)"
    if isinstance(node.body[0], ast.AugAssign):
        new = f"{accumulator} {operator}= {total}"
    else:
        new = f"{accumulator} = {accumulator} {operator} {total}"
    edit = replace_statements(ctx, node, node, new, comments)
    return Fix("Vectorise the accumulation (`.sum(0)` over the rows)", (edit,), safe=False)


def _accumulation(statement: ast.stmt) -> tuple[str | None, str | None, ast.expr | None]:
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        operator = SUM_OPERATORS.get(type(statement.op))
        if operator:
            return statement.target.id, operator, statement.value
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        name = statement.targets[0].id
        value = statement.value
        if isinstance(value, ast.BinOp) and type(value.op) in SUM_OPERATORS:
            if isinstance(value.left, ast.Name) and value.left.id == name:
                return name, SUM_OPERATORS[type(value.op)], value.right
    return None, None, None


def _elementwise_in(term: ast.expr, source: str, index: str, ctx: FunctionContext) -> bool:
    """``term`` uses ``source[index]`` at least once, the index nowhere else, and only
    elementwise operations with numbers."""
    rows = 0
    for node in walk(term):
        if is_row(node, source, index):
            rows += 1
    if rows == 0:
        return False
    return _elementwise(term, source, index, ctx)


def _elementwise(node: ast.expr, source: str, index: str, ctx: FunctionContext) -> bool:
    if is_row(node, source, index):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
        return _elementwise(node.left, source, index, ctx) and _elementwise(node.right, source, index, ctx)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _elementwise(node.operand, source, index, ctx)
    if isinstance(node, ast.Call) and not node.keywords:
        qualname = ctx.qualname(node.func) or ""
        module, _, last = qualname.rpartition(".")
        if module in ("torch", "torch.nn.functional") and last in ELEMENTWISE_FUNCTIONS and len(node.args) == 1:
            return _elementwise(node.args[0], source, index, ctx)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ELEMENTWISE_FUNCTIONS and not node.args:
            return _elementwise(node.func.value, source, index, ctx)
    return False


def _substitute_rows(ctx: FunctionContext, term: ast.expr, source: str) -> str:
    text = ctx.file.source.text
    start, end = ctx.file.source.span(term)
    rows = sorted(
        ctx.file.source.span(n) for n in walk(term) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == source
    )
    pieces, position = [], start
    for row_start, row_end in rows:
        pieces.append(text[position:row_start])
        pieces.append(source)
        position = row_end
    pieces.append(text[position:end])
    return "".join(pieces)
