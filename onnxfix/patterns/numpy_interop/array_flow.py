"""How arrays flow through a NumPy region beyond single calls: lists of arrays (`boxes.append(a)`
then `np.concatenate(boxes)`), NumPy constants that meet the rewritten calls, ndarray methods
(`astype` to a dtype variable), and arguments that are no array (a tuple NumPy would convert)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from onnxfix.patterns.numpy_interop.calls import binds_shape_array, is_numpy_call, shape_array_argument
from onnxfix.patterns.numpy_interop.twins import (
    ARRAY_POSITIONS, CREATION, NUMBER_OPERANDS, NUMPY_DTYPES, PYTHON_TYPE_DTYPES, SEQUENCE_JOINS, TWINS, TYPE_LIMITS,
)
from onnxfix.rewriter.tree_walk import walk
from onnxfix.rewriter.type_tests import runs_later

if TYPE_CHECKING:
    from onnxfix.patterns.numpy_interop.region import Region
    from onnxfix.rewriter.context import FunctionContext


def _append(node: ast.AST) -> str | None:
    """``boxes`` of ``boxes.append(a)`` (one argument, a name's method)."""
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
        and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and not node.keywords
    ):
        return node.func.value.id
    return None


def appended_array_list(node: ast.AST, region: Region) -> str | None:
    """``boxes`` of ``boxes.append(a)`` when ``boxes`` is a list of arrays."""
    name = _append(node)
    return name if name in region.array_lists else None


def is_appended(node: ast.AST, parent: ast.AST | None, region: Region) -> bool:
    """`a` of `boxes.append(a)`, `boxes` a list of arrays."""
    return appended_array_list(parent, region) is not None and parent.args[0] is node


def array_lists(region: Region, nodes: list[ast.AST]) -> set[str]:
    """Names bound to `[]` (and maybe to arrays) to which only arrays are appended."""
    ctx = region.ctx
    appends: dict[str, list[ast.expr]] = {}
    for node in nodes:
        if (name := _append(node)) is not None:
            appends.setdefault(name, []).append(node.args[0])
    lists = set()
    for name, appended in appends.items():
        values = ctx.assignments(name)
        empty = [v for v in values if isinstance(v, ast.List) and not v.elts]
        if empty and all(v in empty or region.is_ndarray(v) for v in values) and all(
                region.is_ndarray(a) for a in appended):
            lists.add(name)
    return lists


def in_array_list(node: ast.AST, parent: ast.AST | None, region: Region) -> bool:
    """`boxes` of `boxes.append(a)`, or `a` appended to a list of arrays."""
    if isinstance(parent, ast.Attribute) and parent.attr == "append" and isinstance(node, ast.Name):
        return node.id in region.array_lists and appended_array_list(region.ctx.parent(parent), region) is not None
    return is_appended(node, parent, region)


def pull_in_constant_arrays(region: Region) -> None:
    """NumPy calls and methods on constants whose arrays reach the rewritten code (an argument
    of a rewritten call, the value of a name one reads, an element of a list of arrays): once
    their consumers are torch they must be tensors too."""
    ctx = region.ctx
    taken = {id(c) for c, _ in [*region.calls, *region.methods]}
    taken |= {id(sub) for found in region.element_loops for part in (found.init, found.loop, found.collect)
              for sub in walk(part)}  # replaced whole by the loop's tensor expression
    frontier: list[ast.AST] = [part for call, _ in [*region.calls, *region.methods] for part in _call_parts(call)]
    frontier += [arg for sink in region.sinks for arg in sink.args]
    names_seen: set[str] = set()
    while frontier:
        for sub in walk(frontier.pop()):
            if id(sub) in taken:
                continue
            name = is_numpy_call(sub, ctx)
            if name is not None and region.is_ndarray(sub):
                if shape_array_argument(sub, ctx) is not None and binds_shape_array(sub, region):
                    continue  # `hw = np.array(x.shape[-2:])` read item by item: the shape itself
                taken.add(id(sub))
                region.constant_calls.append((sub, name))
                if not _float64_creation(sub, name):
                    region.inexact.append(
                        f"`numpy.{name}` of constants meets the rewritten calls: an int array there promotes with a "
                        "float32 one to float64 in NumPy, to float32 in torch")
            elif region.ndarray_method(sub):
                taken.add(id(sub))
                region.constant_methods.append((sub, sub.func.attr))
            elif isinstance(sub, ast.Name) and sub.id not in names_seen and (
                    sub.id in region.ndarray_names or sub.id in region.array_lists):
                names_seen.add(sub.id)
                frontier += ctx.assignments(sub.id)
                frontier += [n.args[0] for n in walk(ctx.fn.node) if appended_array_list(n, region) == sub.id]


def _call_parts(call: ast.Call) -> list[ast.AST]:
    """What a call reads: its arguments, and the receiver of a method."""
    parts = [*call.args, *(k.value for k in call.keywords)]
    if isinstance(call.func, ast.Attribute):
        parts.append(call.func.value)
    return parts


def method_blockers(call: ast.Call, name: str, region: Region) -> list[str]:
    ctx = region.ctx
    if name == "reshape" and call.keywords:
        return ["`ndarray.reshape` with `order=` or `copy=` (Tensor.reshape is C order only)"]
    if name == "transpose" and not call.args:
        return ["`ndarray.transpose()` reverses all dimensions (no one-call twin)"]
    if name == "copy" and (call.args or call.keywords):
        return ["`ndarray.copy` with an `order`"]
    if name != "astype":
        return []
    if len(call.args) != 1 or call.keywords:
        return ["`ndarray.astype` with `casting=`, `copy=` or other arguments"]
    dtype = call.args[0]
    if isinstance(dtype, ast.Constant) and dtype.value in NUMPY_DTYPES:
        return []
    if isinstance(dtype, ast.Name) and dtype.id in PYTHON_TYPE_DTYPES and ctx.is_builtin(dtype.id):
        return []
    if _numpy_dtype(dtype, ctx):
        return []
    values = ctx.assignments(dtype.id) if isinstance(dtype, ast.Name) else []
    if values and all(_numpy_dtype(v, ctx) for v in values) and _read_only_after(dtype, values, region):
        region.dtype_assignments += [v for v in values if v not in region.dtype_assignments]
        return []
    return [f"`ndarray.astype` of `{ctx.segment(dtype)[:30]}`, a dtype onnxfix cannot read"]


def _numpy_dtype(node: ast.AST, ctx: FunctionContext) -> bool:
    qualname = ctx.qualname(node) if isinstance(node, ast.Attribute) else None
    return bool(qualname) and qualname.startswith("numpy.") and qualname[6:] in NUMPY_DTYPES


def _read_only_after(dtype: ast.Name, values: list[ast.expr], region: Region) -> bool:
    """`dtype = np.float32` (maybe in branches) is read, after its first binding, only as the
    dtype of `astype` calls the fix rewrites: making the bindings torch dtypes changes nothing else."""
    ctx = region.ctx
    first = min((v.lineno, v.col_offset) for v in values)
    astype_arguments = {id(call.args[0]) for call, name in [*region.methods, *region.constant_methods]
                        if name == "astype" and call.args}
    return all(  # a read in a lambda, a nested def or a generator may run after the binding
        ((use.lineno, use.col_offset) < first and not runs_later(use, ctx)) or id(use) in astype_arguments
        for use in walk(ctx.fn.node)
        if isinstance(use, ast.Name) and use.id == dtype.id and isinstance(use.ctx, ast.Load)
    )


def non_array_arguments(call: ast.Call, name: str, region: Region) -> list[str]:
    """`np.tile(transformed_size, 5)` of a tuple of sizes: NumPy makes an array of it, the torch
    twin needs a tensor there (only an array, a tensor, or a `.numpy()` is known to become one)."""
    if name in SEQUENCE_JOINS:  # `np.concatenate([a, [[1.0, 2.0]]])`: torch.cat takes tensors only
        joined = call.args[0] if call.args else None
        loose = [e for e in getattr(joined, "elts", []) if not _array_like(e, region)]
        return [f"`numpy.{name}` of `{region.ctx.segment(loose[0])[:30]}`, which is no array "
                f"(`torch.{TWINS[name].torch}` joins tensors only)"] if loose else []
    if name in TYPE_LIMITS:
        return _type_limits_blockers(call, name, region)
    if name in CREATION or not call.args:
        return []
    count = ARRAY_POSITIONS.get(name, 1)
    arrays = call.args if count is None else call.args[:count]
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            return [f"`numpy.{name}` of unpacked arguments"]
        if _array_like(argument, region):
            continue
        if argument not in arrays and name in NUMBER_OPERANDS and _python_number(argument, region.ctx):
            continue  # `np.add(a, 2)`: torch takes the number as NumPy does
        if argument in arrays or name in NUMBER_OPERANDS or TWINS[name].no_constant_args:
            return [f"`numpy.{name}` of `{region.ctx.segment(argument)[:30]}`, which is no array "
                    f"(`torch.{TWINS[name].torch}` needs a tensor there)"]
    return []


def _type_limits_blockers(call: ast.Call, name: str, region: Region) -> list[str]:
    """`np.finfo(D).min`: D a NumPy dtype name or the `.dtype` of an array or tensor (the
    `.numpy()` before it dropped, a torch dtype), read for a limit torch.finfo / iinfo also has."""
    ctx = region.ctx
    (dtype,) = call.args if len(call.args) == 1 and not call.keywords else (None,)
    known = dtype is not None and (_numpy_dtype(dtype, ctx) or (
        isinstance(dtype, ast.Attribute) and dtype.attr == "dtype" and _array_like(dtype.value, region)))
    if not known:
        return [f"`numpy.{name}` of `{ctx.segment(call)[:30]}`, a dtype onnxfix cannot read"]
    use = ctx.parent(call)
    if not (isinstance(use, ast.Attribute) and use.value is call and use.attr in TYPE_LIMITS[name]):
        return [f"`numpy.{name}(...)` read for other than {', '.join(sorted(TYPE_LIMITS[name]))} (torch.{name} has only those)"]
    return []


def _python_number(node: ast.expr, ctx: FunctionContext) -> bool:
    """A number literal (or None, `np.clip`'s open bound), its negation, or an int the oracle proves."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        return node.value is None or type(node.value) in (int, float, bool)
    return ctx.ints.is_int(node) or ctx.sizes.is_size(node)


def _array_like(node: ast.AST, region: Region) -> bool:
    """An array, a tensor, or a comparison of one (`np.where(a > 0, ...)`); a list of arrays is
    a tensor list only to the joins (`np.max(list_of_arrays)` stacks it first, torch.amax refuses it)."""
    if isinstance(node, ast.Compare):
        return any(_array_like(side, region) for side in (node.left, *node.comparators))
    return region.is_ndarray(node) or region.ctx.tensors.is_tensor(node) is True


def _float64_creation(call: ast.Call, name: str) -> bool:
    """`np.zeros(3)`, `np.ones((2, 2))`: float64 in NumPy and in the twin (which adds the dtype),
    promoting with any other array the same way in both."""
    return name in ("zeros", "ones", "eye") and not any(k.arg == "dtype" for k in call.keywords)
