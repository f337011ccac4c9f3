"""Statement-level text edits: one statement replacing others at the same position and
indentation, keeping the comments that sat between their parts on their own lines above it."""

from __future__ import annotations

import ast
import io
import tokenize
from typing import TYPE_CHECKING

from onnxfix.rewriter.rule import Edit
from onnxfix.rewriter.tree_walk import walk

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext


def comments_outside(ctx: FunctionContext, first: ast.stmt, kept: list[ast.AST], last: ast.stmt | None = None,
                     kept_block: bool = False) -> list[str] | None:
    """Comments from ``first`` to the end of ``last`` (default: ``first``) but outside the
    ``kept`` expressions, whose text is reused verbatim (``kept_block``: the statements of
    ``kept`` are one block, reused from the first's start to the last's end, comments between
    them included). None if the text cannot be tokenized."""
    source = ctx.file.source
    start = source.line_starts[first.lineno - 1]  # whole lines, so that indentation tokenizes
    end = source.span(last or first)[1]
    kept_spans = [source.span(node) for node in kept]
    if kept_block and kept_spans:
        kept_spans = [(kept_spans[0][0], kept_spans[-1][1])]
    text = source.text[start:end]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    line_offsets = _line_offsets(text)
    comments = []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        offset = start + line_offsets[token.start[0] - 1] + token.start[1]
        if offset >= source.span(first)[0] and not any(a <= offset < b for a, b in kept_spans):
            comments.append(token.string)
    return comments


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for index, char in enumerate(text):
        if char == "\n":
            offsets.append(index + 1)
    return offsets


def statement_indent(ctx: FunctionContext, statement: ast.stmt) -> str:
    line = ctx.file.source.line_text(statement.lineno)
    return line[: len(line) - len(line.lstrip())]


def replace_statements(ctx: FunctionContext, first: ast.stmt, last: ast.stmt, new: str, comments: list[str]) -> Edit:
    source = ctx.file.source
    start = source.span(first)[0]
    end = source.span(last)[1]
    indent = statement_indent(ctx, first)
    return Edit(start, end, f"\n{indent}".join([*comments, new]))


def parenthesize(text: str, node: ast.AST) -> str:
    """``text`` (the source of ``node``) safe to use as a call argument."""
    if isinstance(node, (ast.Tuple, ast.NamedExpr, ast.Starred)) or (isinstance(node, ast.IfExp)):
        return f"({text})"
    return text


def single_name_assignment(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None


def is_elif(node: ast.stmt, ctx: FunctionContext) -> bool:
    """An `elif` (read from the source: the tree has an `if` alone in an `else` either way). Its body
    runs only where the earlier tests failed: moving its statements out of it changes that."""
    return isinstance(node, ast.If) and ctx.file.source.text.startswith("elif", ctx.file.source.span(node)[0])


def enclosing_statement(node: ast.AST, ctx: FunctionContext) -> ast.stmt | None:
    """The innermost statement holding ``node`` (``node`` itself if it is one)."""
    if isinstance(node, ast.stmt):
        return node
    return next((a for a in ctx.ancestors(node) if isinstance(a, ast.stmt)), None)


def read_after_if(names: set[str], node: ast.If, ctx: FunctionContext) -> bool:
    """One of ``names`` (bound in the `if`'s body) is read where the body's binding may reach: after
    the `if` unless bound again in the reading statement's block between the two (Swin's second `if`
    assigns `pad_values` again before its pad), by `+=`, anywhere in a nested function or lambda,
    and before the `if` too when it is in a loop."""
    inside = {id(sub) for sub in walk(node)}
    looped = any(isinstance(a, (ast.For, ast.While)) for a in ctx.ancestors(node))
    nested = {id(m) for n in walk(ctx.fn.node) if n is not ctx.fn.node
              and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) for m in walk(n)}
    augmented = {id(n.target) for n in walk(ctx.fn.node) if isinstance(n, ast.AugAssign)}
    for sub in walk(ctx.fn.node):
        if (isinstance(sub, ast.Name) and sub.id in names and id(sub) not in inside
                and (isinstance(sub.ctx, ast.Load) or id(sub) in augmented)):
            if id(sub) in nested:
                return True  # a nested function's read runs whenever it is called
            if sub.lineno < node.lineno and not looped:
                continue  # read before the `if` runs
            statement = enclosing_statement(sub, ctx)
            block = block_of(statement, ctx) if statement is not None else []
            earlier = block[: block.index(statement)] if block else []
            # a binding between the `if` and the read shadows the body's; one before the `if` is
            # what the body replaced
            if not any(single_name_assignment(s) == sub.id and s.lineno > node.end_lineno for s in earlier):
                return True
    return False


def next_statement(node: ast.stmt, ctx: FunctionContext) -> ast.stmt | None:
    return sibling_statement(node, ctx, 1)


def previous_statement(node: ast.stmt, ctx: FunctionContext) -> ast.stmt | None:
    return sibling_statement(node, ctx, -1)


def block_of(node: ast.stmt, ctx: FunctionContext) -> list[ast.stmt]:
    """The statement list (body, else or finally block) ``node`` stands in; [] if none."""
    parent = ctx.parent(node)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(node is s for s in block):
            return block
    return []


def sibling_statement(node: ast.stmt, ctx: FunctionContext, offset: int) -> ast.stmt | None:
    """The statement ``offset`` places after ``node`` in its block, if any."""
    block = block_of(node, ctx)
    if not block:
        return None
    index = block.index(node) + offset
    return block[index] if 0 <= index < len(block) else None


def bound_before(name: str, node: ast.stmt, ctx: FunctionContext) -> bool:
    """``name`` is a parameter or assigned by a statement in the same block before ``node``."""
    if ctx.is_parameter(name):
        return True
    block = block_of(node, ctx)
    return any(single_name_assignment(s) == name for s in block[: block.index(node)]) if block else False


def name_loads(name: str, ctx: FunctionContext) -> int:
    return sum(
        1 for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    )


def reads_of_single_binding(name: str, ctx: FunctionContext) -> list[ast.Name] | None:
    """Every read of ``name`` in the function when a single plain store binds it (no rebinding, no
    `del`); None otherwise."""
    uses = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name]
    reads = [n for n in uses if isinstance(n.ctx, ast.Load)]
    stores = [n for n in uses if isinstance(n.ctx, ast.Store)]
    return reads if len(stores) == 1 and len(uses) == len(reads) + 1 else None


def assigned_just_before(name: str, statement: ast.stmt, ctx: FunctionContext) -> ast.Assign | None:
    """`name = ...` as the statement right before ``statement`` in its block, the name's only
    assignment (not a parameter) and read once, by ``statement``: Swin's `pad_input = <condition>`
    before `if pad_input:`, TAPAS's `out_shape = torch.cat(...)` before `...(out_shape.tolist())`.
    Nothing runs in between, so the assigned expression can move into ``statement`` or go."""
    previous = sibling_statement(statement, ctx, -1)
    if not (isinstance(previous, ast.Assign) and single_name_assignment(previous) == name):
        return None
    values = ctx.assignments(name)
    if len(values) != 1 or values[0] is not previous.value or name_loads(name, ctx) != 1 or ctx.is_parameter(name):
        return None
    return previous


def statement_removal(statement: ast.stmt, ctx: FunctionContext) -> Edit | None:
    """Delete a statement that fills its lines alone (no comment, no `;`)."""
    source = ctx.file.source
    start, end = source.span(statement)
    line_start = source.line_starts[statement.lineno - 1]
    text = source.text
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if text[line_start:start].strip() or text[end:line_end].strip():
        return None
    return Edit(line_start, line_end, "")
