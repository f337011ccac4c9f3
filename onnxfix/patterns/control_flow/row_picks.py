"""ONX603: each row's own pick, stacked -> one advanced index.

    indices = torch.max(selector, dim=1)[1]
    x = torch.stack([x[idx, i] for idx, i in enumerate(indices)])     # SAM's best mask per image

(also `x[j][t[j]]` over `range(len(t))`, and `torch.cat([... .unsqueeze(0) ...])`). Row j of the
result is row j of `x` indexed by element j of `t`: `x[arange(n), t]` picks all of them at once,
the row numbers shaped to broadcast against `t`'s rows (an element that is itself a vector of
positions). The pick must follow the row number: two adjacent advanced indices put the broadcast
dims where the row number was, first, as the stack does (`x[j, :, t_j]` with a vector `t_j` keeps
the `:` dim first in the loop, and an index split by it puts the broadcast dims first). Indexing copies the values: no arithmetic, the same numbers. Not
exact where the loop would raise: `torch.stack` of no rows raises, the index gives an empty result.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.gathered_rows import stacked_row
from onnxfix.patterns.control_flow.loop_parts import loop_length_source
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.tree_walk import walk

WHY_UNSAFE = "for an empty `{t}` `torch.stack` raises and the index gives an empty result"


def row_picks_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `torch.stack([x[j, t_j] for j, t_j in enumerate(t)])` and the
    `range(len(t))` form reading `t[j]`."""
    listcomp = ctx.parent(node)
    call = ctx.parent(listcomp) if isinstance(listcomp, ast.ListComp) else None
    if call is None or len(listcomp.generators) != 1 or node.ifs or node.is_async:
        return None, ""
    row = stacked_row(call, listcomp, ctx)
    loop = _loop_names(node, ctx)
    if row is None or loop is None:
        return None, ""
    row_number, element, tensor = loop
    picked = tensor.id
    parts = _picked_row(row, row_number)
    if parts is None or ctx.tensors.is_tensor(tensor) is not True:
        return None, ""
    source, rest = parts
    uses = [i for i, part in enumerate(rest) if _is_element(part, element, picked, row_number)]
    if uses != [0] or not all(_whole(part) for part in rest[1:]):
        return None, ""  # a whole dim between row and pick: the loop keeps it before a vector pick's dims
    if any(isinstance(n, ast.Name) and n.id in (row_number, element) for n in walk(source)):
        return None, ""
    if ctx.tensors.is_tensor(source) is not True:
        return None, ""  # a list's rows (a backbone's feature maps) take no tensor index
    if is_bool_tensor(tensor, ctx):
        return None, ""  # a 0-d bool index adds a dim, a bool tensor index selects: not positions
    torch, imports = ctx.torch_name()
    rows = (f"{torch}.arange({picked}.shape[0], device={picked}.device)"
            f".reshape(-1, *[1] * ({picked}.dim() - 1))")
    texts = [picked if i == uses[0] else ctx.segment(part) for i, part in enumerate(rest)]
    text = f"{ctx.segment(source)}[{', '.join([rows, *texts])}]"
    fix = Fix("Pick every row's element with one advanced index", (ctx.replace(call, text),), safe=False,
              imports=imports)
    return fix, WHY_UNSAFE.format(t=picked)


def _loop_names(node: ast.comprehension, ctx: FunctionContext) -> tuple[str, str | None, ast.Name] | None:
    """(row number, element name or None, the tensor picked from): the loop runs over its rows."""
    iterable, target = node.iter, node.target
    if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate"
            and ctx.is_builtin("enumerate") and len(iterable.args) == 1 and not iterable.keywords
            and isinstance(iterable.args[0], ast.Name) and isinstance(target, ast.Tuple) and len(target.elts) == 2
            and all(isinstance(e, ast.Name) for e in target.elts)):
        return target.elts[0].id, target.elts[1].id, iterable.args[0]
    picked = loop_length_source(iterable)  # `range(len(t))`, `range(t.shape[0])`: every row of t
    if picked is None or not isinstance(target, ast.Name):
        return None
    tensor = next(n for n in walk(iterable) if isinstance(n, ast.Name) and n.id == picked)
    return target.id, None, tensor


def _picked_row(row: ast.expr, row_number: str) -> tuple[ast.expr, list[ast.expr]] | None:
    """(x, the index's other parts) of `x[j, ...]` or `x[j][...]`, j the row number."""
    if not isinstance(row, ast.Subscript):
        return None
    inner = row.value
    if isinstance(inner, ast.Subscript) and _is_name(inner.slice, row_number):
        rest = row.slice.elts if isinstance(row.slice, ast.Tuple) else [row.slice]
        return inner.value, list(rest)
    if isinstance(row.slice, ast.Tuple) and row.slice.elts and _is_name(row.slice.elts[0], row_number):
        return inner, list(row.slice.elts[1:])
    return None


def _is_element(part: ast.expr, element: str | None, picked: str, row_number: str) -> bool:
    """The loop's element of the picked tensor: the enumerate value, or `t[j]`."""
    if element is not None:
        return _is_name(part, element)
    return isinstance(part, ast.Subscript) and _is_name(part.value, picked) and _is_name(part.slice, row_number)


def _whole(part: ast.expr) -> bool:
    """`:` or `...`: the part keeps a whole dim, in the loop and in the index alike."""
    if isinstance(part, ast.Slice):
        return part.lower is None and part.upper is None and part.step is None
    return isinstance(part, ast.Constant) and part.value is Ellipsis


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name

