"""ONX603: rows repeated by data-dependent counts -> torch.repeat_interleave; a list repeated by a
size and concatenated -> Tensor.repeat."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import is_row, loop_length_source, uses_name_elsewhere
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.statements import (
    block_of,
    comments_outside,
    name_loads,
    next_statement,
    parenthesize,
    previous_statement,
    replace_statements,
    single_name_assignment,
)
from onnxfix.rewriter.tree_walk import walk


# -- ONX603: rows repeated by data-dependent counts -> torch.repeat_interleave -------------------
def repeated_rows_loop(node: ast.For, ctx: FunctionContext) -> Fix | None:
    """`out = []` / `for i in range(x.shape[0]): out.append(<x[i] repeated n[i] times>)` /
    `return torch.cat(out, dim=0)` (or `y = torch.cat(...)`)."""
    source_name = loop_length_source(node.iter)
    if source_name is None or node.orelse or len(node.body) != 1 or not isinstance(node.target, ast.Name):
        return None
    appended = _appended(node.body[0])
    if appended is None:
        return None
    accumulator, value = appended
    counts = _repeated_row(value, source_name, node.target.id)
    before, after = previous_statement(node, ctx), next_statement(node, ctx)
    if counts is None or not _is_empty_list(before, accumulator) or after is None:
        return None
    concatenated = _concatenation(after, accumulator, ctx)
    if concatenated is None or uses_name_elsewhere(node.target.id, node, ctx):
        return None
    if name_loads(accumulator, ctx) != 2 or len({source_name, counts, accumulator, node.target.id}) != 4:
        return None  # the list is read elsewhere, or the names collide
    comments = comments_outside(ctx, before, [], after)
    if comments is None:
        return None
    torch_name, imports = ctx.torch_name()
    call = f"{torch_name}.repeat_interleave({source_name}, {counts}, dim=0)"
    new = f"return {call}" if isinstance(after, ast.Return) else f"{single_name_assignment(after)} = {call}"
    edit = replace_statements(ctx, before, after, new, comments)
    return Fix("Repeat the rows with `torch.repeat_interleave`", (edit,), safe=False, imports=imports)


def repeated_rows_comprehension(node: ast.comprehension, ctx: FunctionContext) -> Fix | None:
    """`torch.cat([<x[i] repeated n[i] times> for i in range(x.shape[0])], dim=0)`."""
    listcomp = ctx.parent(node)
    call = ctx.parent(listcomp) if isinstance(listcomp, ast.ListComp) else None
    source_name = loop_length_source(node.iter)
    if call is None or source_name is None or node.ifs or node.is_async or not isinstance(node.target, ast.Name):
        return None
    if len(listcomp.generators) != 1 or not _is_concatenation_of(call, listcomp, ctx):
        return None
    counts = _repeated_row(listcomp.elt, source_name, node.target.id)
    if counts is None or node.target.id in (source_name, counts):
        return None
    torch_name, imports = ctx.torch_name()
    text = f"{torch_name}.repeat_interleave({source_name}, {counts}, dim=0)"
    return Fix("Repeat the rows with `torch.repeat_interleave`", (ctx.replace(call, text),), safe=False, imports=imports)


def _appended(statement: ast.stmt) -> tuple[str, ast.expr] | None:
    """(list name, value) of `name.append(value)`."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return None
    call = statement.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "append" and isinstance(call.func.value, ast.Name)):
        return None
    if len(call.args) != 1 or call.keywords:
        return None
    return call.func.value.id, call.args[0]


def _repeated_row(value: ast.expr, source: str, index: str) -> str | None:
    """The counts tensor N of `source[index].expand(N[index], -1)` / `.repeat(N[index], 1)`,
    the count optionally wrapped in `int(...)` / `.item()`."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.keywords):
        return None
    if not is_row(value.func.value, source, index) or len(value.args) != 2:
        return None
    rest = {"expand": -1, "repeat": 1}.get(value.func.attr)
    last = value.args[1]
    if rest is None or not _is_int_constant(last, rest):
        return None
    return _count_source(value.args[0], index)


def _is_int_constant(node: ast.expr, number: int) -> bool:
    return int_constant(node) == number


def _count_source(node: ast.expr, index: str) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and len(node.args) == 1:
        return _count_source(node.args[0], index)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "item" and not node.args:
        node = node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name):
        return node.value.id if node.slice.id == index else None
    return None


def _is_empty_list(statement: ast.stmt | None, name: str) -> bool:
    return (
        statement is not None
        and single_name_assignment(statement) == name
        and isinstance(statement.value, ast.List)
        and not statement.value.elts
    )


def _concatenation(statement: ast.stmt, accumulator: str, ctx: FunctionContext) -> ast.Call | None:
    """`return torch.cat(acc, dim=0)` or `y = torch.cat(acc, 0)`."""
    value = statement.value if isinstance(statement, (ast.Return, ast.Assign)) else None
    if isinstance(statement, ast.Assign) and single_name_assignment(statement) in (None, accumulator):
        return None
    if not isinstance(value, ast.Call):
        return None
    arguments = value.args[:1]
    if not (arguments and isinstance(arguments[0], ast.Name) and arguments[0].id == accumulator):
        return None
    return value if _is_concatenation_of(value, arguments[0], ctx) else None


def _is_concatenation_of(call: ast.AST, first: ast.expr, ctx: FunctionContext) -> bool:
    """`torch.cat(first)`, `torch.cat(first, 0)` or `torch.cat(first, dim=0)` (also concat)."""
    return _concatenates(call, first, ctx) and _concatenation_dim(call) == 0


# -- ONX603: a list repeated by a size and concatenated -> Tensor.repeat -------------------------
CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})
LITERAL_SHAPE_BUILDERS = frozenset({"torch.ones", "torch.zeros", "torch.empty", "torch.rand", "torch.randn"})
ONE_NAME_ONLY = ("only a list of one tensor name (or attribute, `self.t`) concatenated by `torch.cat` is rewritten "
                 "(to `.repeat`)")


def repeated_list(node: ast.BinOp, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why not) for `torch.cat([t] * n, d)`, or `L = [t] * n` whose one use is
    `torch.cat(L, d)` in the same block or a later statement of it: `t.repeat(...)` with `n` at
    dimension `d`, the assignment of `L` deleted."""
    listed, count = (node.left, node.right) if isinstance(node.left, (ast.List, ast.Tuple)) else (node.right, node.left)
    if len(listed.elts) != 1 or _base_name(listed.elts[0]) is None:
        return None, ONE_NAME_ONLY
    element = ctx.segment(listed.elts[0])
    edits = []
    call = ctx.parent(node)
    if not _concatenates(call, node, ctx):
        call, deletion, why = _bound_list_concatenation(node, element, count, ctx)
        if call is None:
            return None, why
        edits.append(deletion)
    dim = _concatenation_dim(call)
    if dim is None:
        return None, "the concatenation has other arguments, or a dimension that is not an int literal"
    repeats = _repeats(element, parenthesize(ctx.segment(count), count), dim, _literal_rank(element, ctx))
    if repeats is None:
        return None, "the dimension is outside the tensor's rank"
    edits.append(ctx.replace(call, f"{element}.repeat({repeats})"))
    if any(isinstance(a, (ast.Try, ast.TryStar)) for a in ctx.ancestors(call)):
        why = "inside `try`: `torch.cat` raised for an empty list (a count of 0) where `.repeat` returns an empty tensor"
        return Fix("Repeat the tensor with `.repeat`", tuple(edits), safe=False), why
    return Fix("Repeat the tensor with `.repeat`", tuple(edits), safe=True), ""


def _base_name(node: ast.expr) -> str | None:
    """The name under a name or an attribute chain on one (`t`, `self.log_sigma`): written
    twice in `.repeat`'s arguments, it must read the same tensor each time, as such reads do."""
    parts = dotted_parts(node)
    return parts[0] if parts else None


def _concatenates(call: ast.AST | None, first: ast.AST, ctx: FunctionContext) -> bool:
    return (
        isinstance(call, ast.Call) and bool(call.args) and call.args[0] is first
        and ctx.qualname(call.func) in CONCATENATIONS
    )


def _concatenation_dim(call: ast.Call) -> int | None:
    """The literal dimension of `torch.cat(L)`, `torch.cat(L, d)`, `torch.cat(L, dim=d)`."""
    dims = call.args[1:] + [k.value for k in call.keywords if k.arg in ("dim", "axis")]
    if len(dims) + 1 != len(call.args) + len(call.keywords) or len(dims) > 1:
        return None  # out= or another keyword
    if not dims:
        return 0
    dim = dims[0]
    sign = 1
    if isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub):
        dim, sign = dim.operand, -1
    return sign * dim.value if isinstance(dim, ast.Constant) and type(dim.value) is int else None


def _repeats(element: str, count: str, dim: int, rank: int | None) -> str | None:
    """`.repeat` arguments putting `count` at `dim` and 1 elsewhere: literal 1s for a known rank,
    else `*[1] * (t.dim() - k)` for the dimensions the literal dimension leaves open."""
    if rank is not None:
        if not -rank <= dim < rank:
            return None
        ones = ["1"] * rank
        ones[dim] = count
        return ", ".join(ones)
    if dim >= 0:
        return ", ".join(["1"] * dim + [count, f"*[1] * ({element}.dim() - {dim + 1})"])
    return ", ".join([f"*[1] * ({element}.dim() - {-dim})", count] + ["1"] * (-dim - 1))


def _literal_rank(name: str, ctx: FunctionContext) -> int | None:
    """The rank of a name bound once to `torch.ones(1, 4, 1, 1)` (or zeros/empty/rand/randn, sizes
    as int literals, one by one or as one tuple)."""
    values = ctx.assignments(name)
    value = values[0] if len(values) == 1 and not ctx.is_parameter(name) else None
    if not isinstance(value, ast.Call) or ctx.qualname(value.func) not in LITERAL_SHAPE_BUILDERS:
        return None
    sizes = value.args[0].elts if len(value.args) == 1 and isinstance(value.args[0], (ast.Tuple, ast.List)) else value.args
    if not sizes or any(k.arg == "size" or k.arg is None for k in value.keywords):
        return None
    return len(sizes) if all(isinstance(s, ast.Constant) and type(s.value) is int for s in sizes) else None


def _bound_list_concatenation(node: ast.BinOp, element: str, count: ast.expr, ctx: FunctionContext):
    """(the `torch.cat(L, ...)` call, the edit deleting `L = [t] * n`, why not) when `L` is bound
    only there, read only by that call, in the same block or inside a later statement of it, and
    neither `t` nor a name of `n` is rebound in between (so moving `n` there reads the same
    values, and `t` is the same tensor the list held)."""
    assign = ctx.parent(node)
    target = single_name_assignment(assign) if isinstance(assign, ast.Assign) and assign.value is node else None
    if target is None or len(ctx.assignments(target)) != 1 or name_loads(target, ctx) != 1:
        return None, None, ONE_NAME_ONLY + ", directly or through a name read once"
    load = next(n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == target and isinstance(n.ctx, ast.Load))
    call = ctx.parent(load)
    if not _concatenates(call, load, ctx):
        return None, None, ONE_NAME_ONLY + f"; `{target}` is used otherwise"
    block = block_of(assign, ctx)
    later = next((a for a in [call, *ctx.ancestors(call)] if any(a is s for s in block)), None)
    if later is None or block.index(later) < block.index(assign):
        return None, None, f"`torch.cat({target}, ...)` is not in the block that binds `{target}`"
    names = {_base_name(ast.parse(element, mode="eval").body)} | {n.id for n in walk(count) if isinstance(n, ast.Name)}
    between = block[block.index(assign) + 1 : block.index(later) + 1]
    stored = [n for s in between for n in walk(s)
              if isinstance(n, (ast.Name, ast.Attribute)) and not isinstance(getattr(n, "ctx", None), ast.Load)]
    attribute = "." in element  # `self.cur.weight`: a store to it or to a prefix, or a call that may make one
    if any(isinstance(n, ast.Name) and n.id in names
           or isinstance(n, ast.Attribute) and (element + ".").startswith(ctx.segment(n) + ".") for n in stored) or (
        attribute and any(isinstance(n, ast.Call) for s in between[:-1] for n in walk(s))
    ):
        return None, None, f"a name of `{ctx.segment(node)}` is rebound before the concatenation"
    deletion = statement_deletion(assign, ctx)
    if deletion is None:
        return None, None, f"the assignment of `{target}` shares its lines with other code or a comment"
    return call, deletion, ""


def statement_deletion(statement: ast.stmt, ctx: FunctionContext) -> Edit | None:
    """The edit removing the whole lines of a statement alone on them, without a comment."""
    source = ctx.file.source
    start, end = source.span(statement)
    line_start = source.line_starts[statement.lineno - 1]
    following = source.line_starts[statement.end_lineno] if statement.end_lineno < len(source.line_starts) else len(source.text)
    if source.text[line_start:start].strip() or source.text[end:following].strip():
        return None
    if "#" in source.text[start:end]:
        return None
    return Edit(line_start, following, "")
