"""ONX603: a loop scattering the loop index (`a[idx[i]] = i`, the inverse permutation) or the rows
of a tensor (`a[idx[i]] = b[i]`) -> one indexed assignment."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.loop_parts import is_row, loop_length_source, uses_name_elsewhere
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import comments_outside, replace_statements
from onnxfix.rewriter.tree_walk import walk

SORTS = frozenset({"sort", "argsort"})
FLATTENING_METHODS = frozenset({"flatten", "ravel"})
RESHAPES = frozenset({"view", "reshape"})
LIKE_FACTORIES = frozenset({"torch.zeros_like", "torch.empty_like", "torch.ones_like"})
# reading a tensor through these never writes into it
READ_ONLY_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "size", "dim", "numel"})


def scatter_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `for i in range(N): A[IDX[i]] = i` (or `= B[i]`), N the length
    of IDX (`IDX.shape[0]`, `len(IDX)`, `IDX.size(0)`, or of the 1-D tensor IDX sorts)."""
    source = loop_length_source(node.iter)
    if source is None or node.orelse or len(node.body) != 1 or not isinstance(node.target, ast.Name):
        return None, ""
    statement, index = node.body[0], node.target.id
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None, ""
    target, value = statement.targets[0], statement.value
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return None, ""
    slot = target.slice
    if not (isinstance(slot, ast.Subscript) and isinstance(slot.value, ast.Name) and is_row(slot, slot.value.id, index)):
        return None, ""
    written, positions = target.value.id, slot.value.id
    if isinstance(value, ast.Name) and value.id == index:
        rows = None
    elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and is_row(value, value.value.id, index):
        rows = value.value.id
    else:
        return None, ""
    names = [index, written, positions] + ([rows] if rows else [])
    if len(set(names)) != len(names):
        return None, ""  # `a[a[i]] = i` reads what it wrote; `idx[idx[i]] = ...` too
    if not all(_is_tensor(n, ctx) for n in names[1:]):
        return None, ""
    sorted_input = _sorted_input(positions, ctx)
    sorted_name = sorted_input.id if isinstance(sorted_input, ast.Name) else None
    if source != positions and not (source == sorted_name and _one_dimensional(sorted_input, ctx)):
        return None, ""  # the loop may cover part of the index only
    if uses_name_elsewhere(index, node, ctx, (value,) if rows is None else ()):
        return None, ""
    comments = comments_outside(ctx, node, [])
    if comments is None:
        return None, ""
    torch_name, imports = ctx.torch_name()
    if rows is not None:
        new = f"{written}[{positions}] = {rows}"
        why = (
            f"needs `{positions}` without repeated values (the loop kept the last write to a "
            f"position), and `{rows}` as long as `{positions}` with `{written}`'s dtype"
        )
        return Fix("Scatter the rows with one indexed assignment", (replace_statements(ctx, node, node, new, comments),), safe=False, imports=imports), why
    permutation = _permutation(positions, ctx)
    wide = _fresh_index_like(written, positions, ctx) and _int64_index(positions, ctx)
    arange = f"{torch_name}.arange({positions}.shape[0], device={written}.device)"
    new = f"{written}[{positions}] = {arange if wide else arange + f'.to({written}.dtype)'}"
    edit = replace_statements(ctx, node, node, new, comments)
    fix = Fix("Scatter the loop index with `torch.arange`", (edit,), safe=bool(permutation and wide), imports=imports)
    if fix.safe:
        return fix, ""
    reasons = []
    if not permutation and sorted_input is not None and _only_read(positions, ctx):
        reasons.append(
            f"needs `{ctx.segment(sorted_input)}` 1-D, whose rank is not known here (sorting a 1-D tensor gives a "
            f"permutation; with repeated values in `{positions}` the loop kept the last write to a position)"
        )
    elif not permutation:
        reasons.append(
            f"needs `{positions}` to be a permutation (1-D, no repeated value: the loop kept the last "
            f"write to a position), as `torch.sort`/`argsort` of a 1-D tensor or `torch.randperm` give"
        )
    if not wide:
        reasons.append(
            f"needs `{written}` 1-D and of a dtype holding every index (the loop raised on an "
            f"overflowing int8/int16/uint8 where `.to` wraps)"
        )
    return fix, "; ".join(reasons)


def _is_tensor(name: str, ctx: FunctionContext) -> bool:
    return bool(ctx.tensors.is_tensor(ast.Name(id=name, ctx=ast.Load()))) or _index_source(name, ctx) is not None


def _sorted_input(name: str, ctx: FunctionContext) -> ast.expr | None:
    """The expression X when `name` is bound once to the indices of sorting X."""
    call = _index_source(name, ctx)
    if call is None or ctx.qualname(call.func) == "torch.randperm":
        return None
    if isinstance(call.func, ast.Attribute) and call.func.attr in SORTS and not _is_torch(call.func, ctx):
        sorted_tensor = call.func.value
    else:
        sorted_tensor = call.args[0] if call.args else None
    return sorted_tensor


def _index_source(name: str, ctx: FunctionContext) -> ast.Call | None:
    """The call binding `name`, assigned once (not a parameter), to a permutation-shaped index:
    `torch.randperm(n)`, `torch.argsort(x)` / `x.argsort()`, or the second element of
    `torch.sort(x)` / `x.sort()` unpacked."""
    values = ctx.assignments(name)
    if ctx.is_parameter(name) or len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, ast.Assign):  # `_, name = x.sort(...)`
        if len(value.targets) != 1 or not isinstance(value.targets[0], (ast.Tuple, ast.List)):
            return None
        elements = value.targets[0].elts
        if len(elements) != 2 or not (isinstance(elements[1], ast.Name) and elements[1].id == name):
            return None
        call = value.value
        return call if isinstance(call, ast.Call) and _sort_kind(call, ctx) == "sort" else None
    if isinstance(value, ast.Call) and (_sort_kind(value, ctx) == "argsort" or ctx.qualname(value.func) == "torch.randperm"):
        return value
    return None


def _int64_index(name: str, ctx: FunctionContext) -> bool:
    """`name` holds int64 indices: sort/argsort indices, or `torch.randperm` without `dtype=`."""
    call = _index_source(name, ctx)
    return call is not None and not any(k.arg in ("dtype", None) for k in call.keywords)


def _sort_kind(call: ast.Call, ctx: FunctionContext) -> str | None:
    qualname = ctx.qualname(call.func) or ""
    if qualname in ("torch.sort", "torch.argsort"):
        return qualname[len("torch."):] if call.args else None
    if isinstance(call.func, ast.Attribute) and call.func.attr in SORTS and not _is_torch(call.func, ctx):
        return call.func.attr if ctx.tensors.is_tensor(call.func.value) else None
    return None


def _is_torch(func: ast.Attribute, ctx: FunctionContext) -> bool:
    return (ctx.qualname(func.value) or "").split(".")[0] == "torch"


def _permutation(name: str, ctx: FunctionContext) -> bool:
    """`name` holds a permutation of range(len) when the loop runs: bound to `torch.randperm` or
    to the indices of sorting a 1-D tensor, and only read afterwards."""
    call = _index_source(name, ctx)
    if call is None or any(k.arg == "out" for k in call.keywords) or not _only_read(name, ctx):
        return False
    if ctx.qualname(call.func) == "torch.randperm":
        return True
    sorted_input = _sorted_input(name, ctx)
    return sorted_input is not None and _one_dimensional(sorted_input, ctx)


def _one_dimensional(node: ast.expr, ctx: FunctionContext) -> bool:
    """`node` is a 1-D tensor: `torch.arange`, `torch.randperm`, `x.flatten()`, `torch.flatten(x)`,
    `x.ravel()`, `x.view(-1)`, `x.reshape(-1)`, or a name bound once to one of those."""
    if isinstance(node, ast.Name):
        values = ctx.assignments(node.id)
        if ctx.is_parameter(node.id) or len(values) != 1 or not isinstance(values[0], ast.expr):
            return False
        node = values[0]
    if not isinstance(node, ast.Call):
        return False
    call = node
    qualname = ctx.qualname(call.func) or ""
    if qualname in ("torch.arange", "torch.randperm"):
        return True
    if qualname in ("torch.flatten", "torch.ravel"):
        return len(call.args) == 1 and not call.keywords
    if isinstance(call.func, ast.Attribute) and not _is_torch(call.func, ctx) and not call.keywords:
        if call.func.attr in FLATTENING_METHODS:
            return not call.args
        if call.func.attr in RESHAPES:
            return len(call.args) == 1 and int_constant(call.args[0]) == -1
    return False


def _only_read(name: str, ctx: FunctionContext) -> bool:
    """Every use of `name` in the function reads it: an index (`a[name]`), a read subscript
    (`name[i]`), a size or dtype, a method that is not in-place, or an argument of a `torch.*`
    function without `out=`; never written through, passed to other code, or aliased."""
    for node in walk(ctx.fn.node):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.Subscript):
            if parent.slice is node or isinstance(parent.ctx, ast.Load):
                continue
            return False
        if isinstance(parent, ast.Attribute):
            call = ctx.parent(parent)
            if parent.attr in READ_ONLY_ATTRIBUTES:
                continue
            if isinstance(call, ast.Call) and call.func is parent and not parent.attr.endswith("_") and not _aliasing(parent.attr):
                if not isinstance(ctx.parent(call), ast.Assign):
                    continue  # `name.sum()`: a new value, not bound where it could alias
            return False
        if isinstance(parent, ast.Call) and node in parent.args:
            qualname = ctx.qualname(parent.func) or ""
            if qualname == "builtins.len" or (isinstance(parent.func, ast.Name) and parent.func.id == "len" and ctx.is_builtin("len")):
                continue
            if qualname.startswith("torch.") and not any(k.arg == "out" for k in parent.keywords) and not isinstance(ctx.parent(parent), ast.Assign):
                continue
            if qualname in LIKE_FACTORIES:
                continue
            return False
        return False
    return True


def _aliasing(method: str) -> bool:
    """Methods whose result may share memory with the tensor (a write through it writes `name`)."""
    return method in {"view", "view_as", "reshape", "flatten", "squeeze", "unsqueeze", "t", "transpose", "permute",
                      "expand", "expand_as", "narrow", "select", "unbind", "split", "chunk", "detach", "as_strided",
                      "diagonal", "movedim", "unfold", "ravel", "contiguous", "to", "type", "data_ptr", "numpy"}


def _fresh_index_like(written: str, positions: str, ctx: FunctionContext) -> bool:
    """`written` is bound once to `torch.zeros_like(positions)` (or empty/ones), no dtype given:
    a new tensor of the index's shape and dtype (int64, 1-D when `positions` is a permutation)."""
    values = ctx.assignments(written)
    if ctx.is_parameter(written) or len(values) != 1 or not isinstance(values[0], ast.Call):
        return False
    call = values[0]
    if ctx.qualname(call.func) not in LIKE_FACTORIES or len(call.args) != 1 or call.keywords:
        return False
    return isinstance(call.args[0], ast.Name) and call.args[0].id == positions
