"""ONX603: a loop over the rows reducing each row up to its own length -> masked reductions while exporting.

    for i in range(x.shape[0]):                              # Jasper / NeMo's normalize_batch
        x_mean[i, :] = x[i, :, :seq_len[i]].mean(dim=1)
        x_std[i, :] = x[i, :, :seq_len[i]].std(dim=1)

Per-utterance statistics of speech front ends. Both exporters unroll the loop at the export's
batch (and the legacy exporter keeps each length). While exporting (`torch.onnx.is_in_onnx_export()`,
both exporters) every row is reduced at once over a mask of its valid positions: the sum of the
valid elements, the mean as that sum over their count, the variance from the masked squared
deviations (Bessel's correction, as `std()` / `var()` default to). Eager, torch.export outside
torch.onnx and TorchScript run the loop as written, so the fix is safe; the exported model sums in
another order than the loop's kernels, which the export's own verification measures.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import loop_length_source, uses_name_elsewhere
from onnxfix.patterns.control_flow.nested_branches import line_end
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.statements import statement_indent
from onnxfix.rewriter.tree_walk import walk

_REDUCTIONS = frozenset({"sum", "mean", "var", "std"})


def length_reduction_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, "") for a loop whose statements each write a reduction of row `i` of the tensor the
    range counts, sliced up to `lengths[i]` along one dim, into row `i` of a tensor."""
    source_name = loop_length_source(node.iter, ctx)
    if node.orelse or source_name is None or not isinstance(node.target, ast.Name):
        return None, ""
    index = node.target.id
    plans = [_plan(statement, index, source_name, ctx) for statement in node.body]
    if not plans or any(p is None for p in plans) or len({p["lengths"] for p in plans}) != 1:
        return None, ""
    rows = [p["row"] for p in plans] + [p["target_row"] for p in plans] + [p["length_row"] for p in plans]
    if uses_name_elsewhere(index, node, ctx, tuple(rows)) or ctx.tensors.is_tensor(ast.Name(source_name, ast.Load())) is False:
        return None, ""
    torch, imports = ctx.torch_name()
    lengths = plans[0]["lengths"]
    if not _tensor_like(lengths, ctx):
        lengths = f"{torch}.as_tensor({lengths}, device={source_name}.device)"
    statements = [_vectorised(p, lengths, torch, ctx) for p in plans]
    return _guarded(node, statements, torch, ctx, imports), ""


_TENSOR_ATTRIBUTES = frozenset({"shape", "item", "size", "dim", "device", "dtype", "long", "int", "float", "to"})


def _tensor_like(name: str, ctx: FunctionContext) -> bool:
    """Known to be a tensor, or read as one in the function (`seq_len.shape[0]`, `seq_len[i].item()`):
    `torch.as_tensor` of a tensor is a constant to the legacy tracer."""
    if ctx.tensors.is_tensor(ast.Name(name, ast.Load())):
        return True
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Attribute) and node.attr in _TENSOR_ATTRIBUTES:
            base = node.value.value if isinstance(node.value, ast.Subscript) else node.value
            if isinstance(base, ast.Name) and base.id == name:
                return True
    return False


def _plan(statement: ast.stmt, index: str, source_name: str, ctx: FunctionContext) -> dict | None:
    """`OUT[i, ...] = X[i, :, ..., :L[i], ...].red(dim=d)` taken apart, or None."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    target_row = _row_index(target, index)
    if target_row is None or not isinstance(target.value, ast.Name) or target.value.id == source_name:
        return None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _REDUCTIONS
            and isinstance(value.func.value, ast.Subscript)):
        return None
    row_slice = value.func.value
    if not (isinstance(row_slice.value, ast.Name) and row_slice.value.id == source_name
            and isinstance(row_slice.slice, ast.Tuple)):
        return None
    row, *rest = row_slice.slice.elts
    if not (isinstance(row, ast.Name) and row.id == index):
        return None
    cut = [k for k, e in enumerate(rest) if not _whole(e)]
    if len(cut) != 1 or not isinstance(rest[cut[0]], ast.Slice):
        return None
    part = rest[cut[0]]
    length = _row_length(part, index)
    dims = _reduced_dims(value, len(rest))
    if length is None or dims is None or (dims and cut[0] not in dims and cut[0] - len(rest) not in dims):
        return None
    return {"target": target, "target_row": target_row, "x": source_name, "row": row, "reduction": value.func.attr,
            "dims": dims, "cut": cut[0], "lengths": length[0], "length_row": length[1]}


def _row_index(target: ast.expr, index: str) -> ast.Name | None:
    """The `i` of `OUT[i]` or `OUT[i, :, ...]` (whole slices after it)."""
    if not isinstance(target, ast.Subscript):
        return None
    elements = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    first, *rest = elements
    ok = isinstance(first, ast.Name) and first.id == index and all(_whole(e) for e in rest)
    return first if ok else None


def _whole(element: ast.expr) -> bool:
    return isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None


def _row_length(part: ast.Slice, index: str) -> tuple[str, ast.Name] | None:
    """(L, the `i` in it) of `:L[i]` or `:L[i].item()`."""
    bound = part.upper
    if part.lower is not None or part.step is not None or bound is None:
        return None
    if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute) and bound.func.attr == "item" \
            and not bound.args:
        bound = bound.func.value
    if (isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Name) and isinstance(bound.slice, ast.Name)
            and bound.slice.id == index):
        return bound.value.id, bound.slice
    return None


def _reduced_dims(call: ast.Call, rank: int) -> list[int] | None:
    """The reduced dims of the row slice ([] for all), from a literal `dim` (positional or keyword);
    None for any other argument (keepdim, dtype, correction)."""
    arguments = list(call.args) + [k.value for k in call.keywords if k.arg == "dim"]
    if any(k.arg != "dim" for k in call.keywords) or len(arguments) > 1:
        return None
    if not arguments:
        return []
    dim = arguments[0]
    values = dim.elts if isinstance(dim, (ast.Tuple, ast.List)) else [dim]
    dims = [int_constant(v) for v in values]
    if any(d is None or not -rank <= d < rank for d in dims):
        return None
    return [d % rank for d in dims]


def _valid(x: str, cut: int, lengths: str, torch: str) -> str:
    """Row r's valid positions along dim ``cut`` of ``x``: below lengths[r], broadcast over ``x``."""
    shape = ", ".join([f"{x}.shape[0]", *["1"] * (cut - 1), f"{x}.shape[{cut}]"])
    return (f"({torch}.arange({x}.shape[{cut}], device={x}.device)[None, :] < {lengths}[:, None])"
            f".reshape(({shape}) + (1,) * ({x}.dim() - {cut + 1}))")


def _vectorised(plan: dict, lengths: str, torch: str, ctx: FunctionContext) -> str:
    x, cut = plan["x"], plan["cut"] + 1  # the row slice's dims are the tensor's, one further
    dims = tuple(d + 1 for d in plan["dims"])
    axes = (f"{dims}" if len(dims) > 1 else f"{dims[0]}") if dims else f"tuple(range(1, {x}.dim()))"
    lines = [f"_onnx_valid = {_valid(x, cut, lengths, torch)}"]
    total, count = f"{x}.masked_fill(~_onnx_valid, 0).sum({axes}", f"_onnx_valid.expand_as({x}).sum({axes}"
    if plan["reduction"] == "sum":
        lines.append(f"_onnx_rows = {total})")
    elif plan["reduction"] == "mean":
        lines.append(f"_onnx_rows = {total}) / {count})")
    else:  # the mean of the valid elements, then their squared deviations over count - 1
        lines.append(f"_onnx_rows = {total}, keepdim=True) / {count}, keepdim=True)")
        squares = f"({x} - _onnx_rows).masked_fill(~_onnx_valid, 0).square().sum({axes}) / ({count}) - 1)"
        lines.append(f"_onnx_rows = {torch}.sqrt({squares})" if plan["reduction"] == "std" else f"_onnx_rows = {squares}")
    whole = _all_rows(plan["target"], ctx)
    lines.append(f"{whole} = _onnx_rows.reshape(_onnx_rows.shape[:1] + (1,) * ({whole}.dim() - _onnx_rows.dim()) "
                 "+ _onnx_rows.shape[1:])")
    return "\n".join(lines)


def _all_rows(target: ast.Subscript, ctx: FunctionContext) -> str:
    """`OUT[:, ...]`: the target with its row index made a whole slice."""
    elements = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    rest = [ctx.segment(e) for e in elements[1:]]
    return f"{ctx.segment(target.value)}[{', '.join([':', *rest])}]"


def _guarded(node: ast.For, statements: list[str], torch: str, ctx: FunctionContext, imports) -> Fix | None:
    source = ctx.file.source
    indent, inner = statement_indent(ctx, node), statement_indent(ctx, node.body[0])
    if len(inner) <= len(indent) or not inner.startswith(indent) or node.body[0].lineno == node.lineno:
        return None
    step = inner[len(indent):]
    loop_lines = [source.line_text(n) for n in range(node.lineno, node.end_lineno + 1)]
    moved_loop = "\n".join(f"{step}{line}" if line.strip() else "" for line in loop_lines)
    body = "\n".join(f"{indent}{step}{line}" for s in statements for line in s.split("\n"))
    text = (f"if {torch}.onnx.is_in_onnx_export():  # every row at once over a mask of its length (eager: the loop)\n"
            f"{body}\n{indent}else:\n{moved_loop}")
    start = source.offset(node.lineno, node.col_offset)
    return Fix("Reduce every row over a mask of its length while exporting", (Edit(start, line_end(node, ctx), text),),
               safe=True, imports=imports)
