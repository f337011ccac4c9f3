"""A function's NumPy region: sources, numpy calls, ndarray names, sinks; whether it can be
rewritten into torch as one group, and whether safely (the edits: numpy_interop/fix.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from onnxfix.patterns.numpy_interop.array_flow import (
    appended_array_list, array_lists, in_array_list, method_blockers, non_array_arguments, pull_in_constant_arrays,
)
from onnxfix.patterns.numpy_interop.calls import (
    SINK_KEYWORDS, binds_shape_array, has_keyword, is_numpy_call, is_to_numpy,
    shape_array_argument, sink_kind,
)
from onnxfix.patterns.numpy_interop.element_loops import ElementLoop, find_element_loops
from onnxfix.patterns.numpy_interop.guard_roots import guard_roots
from onnxfix.patterns.numpy_interop.numbers import NumberCall, number_call
from onnxfix.patterns.numpy_interop.twins import (
    NDARRAY_METHODS, TUPLE_RESULTS, TWINS, TYPE_LIMITS, VARIADIC_METHODS, Twin, argument_blockers, foreign_elements, method_twin,
)
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import EXPORTERS
from onnxfix.rewriter.signatures import converts_argument
from onnxfix.rewriter.tree_walk import walk


@dataclass
class Region:
    """The NumPy part of one function."""

    ctx: FunctionContext
    ndarray_names: set[str] = field(default_factory=set)
    # `rel = torch.from_numpy(rel).to(device)`: the statement after which the name holds a tensor
    converted: dict[str, ast.stmt] = field(default_factory=dict)
    # `input_lengths = input_lengths.cpu().numpy()`: the statement binding a parameter's name to an
    # array; reads before its end are the argument (a tensor)
    born: dict[str, ast.stmt] = field(default_factory=dict)
    data_names: set[str] = field(default_factory=set)
    sources: list[ast.Call] = field(default_factory=list)  # x.numpy()
    calls: list[tuple[ast.Call, str]] = field(default_factory=list)  # np.f(...)
    sinks: list[ast.Call] = field(default_factory=list)  # torch.from_numpy(a)
    methods: list[tuple[ast.Call, str]] = field(default_factory=list)  # a.sum(axis=0)
    numbers: list[NumberCall] = field(default_factory=list)  # np.prod(x.shape): a number, not an array
    shape_arrays: set[str] = field(default_factory=set)  # hw = np.array(x.numpy().shape[-2:])
    element_loops: list[ElementLoop] = field(default_factory=list)  # for m in a: tmp.append(f(m))
    # `boxes = []` ... `boxes.append(a)` ... `np.concatenate(boxes)`: lists only of arrays, which
    # hold tensors once the arrays are tensors (torch.cat takes a list as NumPy does)
    array_lists: set[str] = field(default_factory=set)
    # `z = np.zeros(3)` then `np.maximum(a, z)`: NumPy on constants whose arrays flow into the
    # rewritten calls; translated with them (torch.maximum takes no ndarray), not reported
    constant_calls: list[tuple[ast.Call, str]] = field(default_factory=list)
    constant_methods: list[tuple[ast.Call, str]] = field(default_factory=list)
    # `dtype = np.float32` ... `a.astype(dtype)`: the dtype values the fix makes torch dtypes
    dtype_assignments: list[ast.expr] = field(default_factory=list)
    # `31.0 - e`, `float(k) * a`: a Python float in +, -, * with an array, which the fix makes a
    # 0-d float64 tensor so that torch promotes as NumPy does (float64 with an int array, the
    # array's dtype with a float one), where a Python float gives torch's default float32.
    float_scalars: list[ast.expr] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)  # why no fix
    inexact: list[str] = field(default_factory=list)  # why the fix is unsafe
    rounding: list[str] = field(default_factory=list)  # steps that differ only in the last bits
    # The expressions the fix guards (`(<torch> if torch.onnx.is_in_onnx_export() else <NumPy>)`)
    # so that eager keeps the NumPy original; None when the fix is exact and needs no guard, or
    # when an edit sits where no expression can be swapped (then rounding makes it unsafe).
    guarded: list[ast.expr] | None = None

    @property
    def unsafe(self) -> list[str]:
        """Why the fix is unsafe: a dtype or meaning that may differ, or rounding left unguarded."""
        return self.inexact + (self.rounding if self.guarded is None else [])

    def is_ndarray(self, node: ast.AST) -> bool:
        if is_to_numpy(node):
            return True
        name = is_numpy_call(node, self.ctx)
        if name is not None:  # `int(np.ceil(H / k))`: size math (ONX402); `np.prod(x.shape)`: a number
            # `np.finfo(D)`: a type's limits, read as numbers
            return name not in TYPE_LIMITS and not self.ctx.sizes.rounds_size(node) and number_call(node, self.ctx) is None
        if isinstance(node, ast.Name):
            after, born = self.converted.get(node.id), self.born.get(node.id)
            at = (node.lineno, node.col_offset)
            return node.id in self.ndarray_names and (
                after is None or at < (after.end_lineno, after.end_col_offset)) and (
                born is None or at >= (born.end_lineno, born.end_col_offset))
        if self.ndarray_method(node):
            return True
        if isinstance(node, ast.BinOp):
            if self.scalar_into_tensor(node.left, node) or self.scalar_into_tensor(node.right, node):
                return False  # `x + a.sum()`: torch arithmetic, a tensor
            return self.is_ndarray(node.left) or self.is_ndarray(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.is_ndarray(node.operand)
        if isinstance(node, ast.Subscript):
            return not self.is_shape_item(node) and self.is_ndarray(node.value)
        return False

    def ndarray_method(self, node: ast.AST) -> str | None:
        """``sum`` of ``a.sum(...)`` on an ndarray (a method with a Tensor twin)."""
        if (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in NDARRAY_METHODS and self.is_ndarray(node.func.value)
        ):
            return node.func.attr
        return None

    def scalar_into_tensor(self, node: ast.AST, parent: ast.AST) -> bool:
        """``a.sum()`` (a full reduction: a NumPy scalar) in arithmetic with a tensor, as in
        ``x + x.numpy().sum()``: torch takes the scalar, so the result is a tensor. The other
        operand is a tensor by the oracle or the very name whose ``.numpy()`` was taken."""
        if not (isinstance(parent, ast.BinOp) and self.ndarray_method(node)) or node.args or node.keywords:
            return False
        other = parent.right if parent.left is node else parent.left
        return bool(self.ctx.tensors.is_tensor(other)) or (
            isinstance(other, ast.Name) and any(_receiver_name(source) == other.id for source in self.sources)
        )

    def is_shape_item(self, node: ast.AST) -> bool:
        """`hw[0]` of a shape array: a size, the int the shape tuple holds there."""
        return (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.shape_arrays
            and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int
        )


def build_region(ctx: FunctionContext) -> Region:
    region = Region(ctx)
    nodes = [n for n, _ in _body(ctx)]
    if not any(_touches_numpy(node, ctx) for node in nodes):
        return region  # no array can exist here: skip the costly data-flow (most functions)
    # NumPy no exporter runs (the eager branch of this fix's own guard) is not export-time code
    nodes = [n for n in nodes if ctx.exporters_skipping(n) != EXPORTERS]
    region.sources = [node for node in nodes if is_to_numpy(node)]
    _find_ndarray_names(region, nodes)
    _find_shape_arrays(region, nodes)
    region.element_loops = find_element_loops(ctx, region.ndarray_names, nodes)
    if region.element_loops:
        region.inexact.append("a loop over an array's elements becomes one tensor expression "
                              "(the Python ints it collected become int64, as NumPy's array of them)")
        inside = {id(sub) for found in region.element_loops for part in (found.init, found.loop, found.collect)
                  for sub in walk(part)}
        nodes = [node for node in nodes if id(node) not in inside]
    region.array_lists = array_lists(region, nodes)
    _find_data_names(region, nodes)
    region.data_names |= {found.init.targets[0].id for found in region.element_loops}
    for node in nodes:
        if is_to_numpy(node):
            continue
        elif region.ndarray_method(node):
            if _is_data(node.func.value, region):
                region.methods.append((node, node.func.attr))
        elif number_call(node, ctx) is not None:
            region.numbers.append(number_call(node, ctx))
        elif is_numpy_call(node, ctx) and _involves_data(node, region) and not ctx.sizes.rounds_size(node):
            region.calls.append((node, is_numpy_call(node, ctx)))
        elif sink_kind(node, ctx) and node.args and region.is_ndarray(node.args[0]) and _is_data(node.args[0], region):
            region.sinks.append(node)
        elif ctx.qualname(getattr(node, "func", None)) == "torch.from_numpy":
            region.sinks.append(node)
            region.blockers.append("`torch.from_numpy` of a value onnxfix cannot trace to torch")
    if region.calls or region.sources:
        pull_in_constant_arrays(region)
    _check_fixable(region, nodes)
    if (region.inexact or region.rounding) and not region.blockers and not region.element_loops:
        region.guarded = guard_roots(region)  # a deleted loop cannot be guarded
    return region


def _touches_numpy(node: ast.AST, ctx: FunctionContext) -> bool:
    """Where an array is born (`.numpy()`, `np.f(...)`) or handed back (`torch.from_numpy`)."""
    if not isinstance(node, ast.Call):
        return False
    return is_to_numpy(node) or is_numpy_call(node, ctx) is not None or ctx.qualname(node.func) == "torch.from_numpy"


def _receiver_name(source: ast.Call) -> str | None:
    """``x`` of ``x.numpy()``, ``x.cpu().numpy()``, ``x.detach().cpu().numpy()``."""
    receiver = source.func.value
    while (
        isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in ("cpu", "detach") and not receiver.args
    ):
        receiver = receiver.func.value
    return receiver.id if isinstance(receiver, ast.Name) else None


def _body(ctx: FunctionContext):
    from onnxfix.rewriter.function_body import walk_function_body

    return walk_function_body(ctx.fn.node)


def _find_ndarray_names(region: Region, nodes: list[ast.AST]) -> None:
    """Names all of whose assignments are ndarray expressions (to a fixed point)."""
    assigned: dict[str, list[ast.AST]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif _unpacks_tuple_result(node, region.ctx):
            for element in node.targets[0].elts:  # `m, e = np.frexp(a)`: both arrays
                assigned.setdefault(element.id, []).append(node.value)
    _grow_ndarray_names(region, assigned)
    for name in region.ndarray_names:
        _find_conversion(region, name, assigned[name])
        _find_birth(region, name, assigned[name])
    if region.converted:  # names read after a conversion hold tensors: grow the set again
        region.ndarray_names.clear()
        _grow_ndarray_names(region, assigned)


def _grow_ndarray_names(region: Region, assigned: dict[str, list[ast.AST]]) -> None:
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name in region.ndarray_names:
                continue
            if len(region.ctx.assignments(name)) == len(values) and any(region.is_ndarray(v) for v in values):
                region.ndarray_names.add(name)
                changed = True


def _find_birth(region: Region, name: str, values: list[ast.AST]) -> None:
    """A parameter rebound once, by a statement of the function's own body, to an array: the
    name holds the argument until that statement ends."""
    ctx = region.ctx
    if len(values) == 1 and ctx.is_parameter(name) and ctx.parent(values[0]) in ctx.fn.node.body:
        region.born[name] = ctx.parent(values[0])


def _find_conversion(region: Region, name: str, values: list[ast.AST]) -> None:
    """DeBERTa's `rel_pos_ids = torch.from_numpy(rel_pos_ids).to(device)`: a binding of the name,
    a statement of the function's own body, converts the array to a tensor; the name holds a
    tensor from there on when no later binding is an array again."""
    ctx = region.ctx
    ordered = sorted(values, key=lambda v: (v.lineno, v.col_offset))
    index = next((i for i, v in enumerate(ordered) if _converts(v, name, ctx)), None)
    if index is None:
        return
    statement = ctx.parent(ordered[index])
    if statement not in ctx.fn.node.body:
        return
    region.converted[name] = statement
    if any(region.is_ndarray(v) for v in ordered[index:]):
        del region.converted[name]


def _converts(value: ast.AST, name: str, ctx: FunctionContext) -> bool:
    """`torch.from_numpy(name)`, also followed by tensor methods (`.to(device)`, `.long()`), also
    of an ndarray method of the name (`torch.from_numpy(name.astype(np.float32))`)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and sink_kind(value, ctx) is None:
        value = value.func.value
    if sink_kind(value, ctx) is None or len(value.args) != 1:
        return False
    array = value.args[0]
    while (isinstance(array, ast.Call) and isinstance(array.func, ast.Attribute)
           and array.func.attr in NDARRAY_METHODS):  # `torch.from_numpy(name.astype(dtype))`
        array = array.func.value
    return isinstance(array, ast.Name) and array.id == name


def _unpacks_tuple_result(node: ast.AST, ctx: FunctionContext) -> bool:
    """``m, e = np.frexp(a)``: names unpacked from a NumPy function that returns arrays."""
    return (
        isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
        and all(isinstance(element, ast.Name) for element in node.targets[0].elts)
        and is_numpy_call(node.value, ctx) in TUPLE_RESULTS
    )


def _find_shape_arrays(region: Region, nodes: list[ast.AST]) -> None:
    """Names bound once to an array of sizes, every use of which reads one size (`hw[0]`)."""
    for name in list(region.ndarray_names):
        values = region.ctx.assignments(name)
        if len(values) != 1 or shape_array_argument(values[0], region.ctx) is None:
            continue
        uses = [n for n in nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        region.shape_arrays.add(name)
        if not all(region.is_shape_item(region.ctx.parent(use)) for use in uses):
            region.shape_arrays.discard(name)


def _involves_data(call: ast.Call, region: Region) -> bool:
    """A numpy call on constants (np.sqrt(self.head_dim), np.arange(n_blocks)) is harmless;
    one on values derived from tensors, sizes or forward's inputs is not."""
    return any(_is_data(arg, region) for arg in [*call.args, *(k.value for k in call.keywords)])


def _is_data(expr: ast.AST, region: Region) -> bool:
    ctx = region.ctx
    for sub in walk(expr):
        if is_to_numpy(sub) or ctx.sizes.is_size(sub) or ctx.tensors.is_tensor(sub):
            return True
        if isinstance(sub, ast.Name) and (sub.id in region.data_names or _is_data_parameter(sub.id, ctx)):
            return True
    return False


def _find_data_names(region: Region, nodes: list[ast.AST]) -> None:
    """Names assigned (somewhere) from values derived from tensor data or sizes."""
    changed = True
    while changed:
        changed = False
        for node in nodes:
            appended = appended_array_list(node, region)
            if appended is not None and appended not in region.data_names and _is_data(node.args[0], region):
                region.data_names.add(appended)
                changed = True
            if not isinstance(node, ast.Assign):
                continue
            targets = {name for target in node.targets for name in _bound_by(target)}
            if targets - region.data_names and _is_data(node.value, region):
                region.data_names |= targets
                changed = True


def _bound_by(target: ast.AST):
    """Names an assignment target binds (not the `self` of `self.x = ...`)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound_by(element)
    elif isinstance(target, ast.Starred):
        yield from _bound_by(target.value)


def _is_data_parameter(name: str, ctx: FunctionContext) -> bool:
    """forward's inputs are tensors; a helper's parameters are often plain ints (a layer
    index, a length), so there only a parameter known to be a tensor counts."""
    if not ctx.is_parameter(name) or name == ctx.self_name:
        return False
    return ctx.fn.is_entry or bool(ctx.tensors.is_tensor(ast.Name(id=name, ctx=ast.Load())))


def _sequence_names(call: ast.Call, ctx: FunctionContext) -> set[str]:
    """The names among the call's arguments that some binding makes a Python list or tuple
    (`counts = [1, 2]; np.repeat(a, counts)`: torch wants an int or a tensor there)."""
    return {a.id for a in (*call.args, *(k.value for k in call.keywords)) if isinstance(a, ast.Name)
            and any(isinstance(v, (ast.List, ast.Tuple, ast.ListComp)) for v in ctx.assignments(a.id))}


def _check_fixable(region: Region, nodes: list[ast.AST]) -> None:
    ctx = region.ctx
    for call, name in [*region.calls, *region.constant_calls]:
        if shape_array_argument(call, ctx) is not None and binds_shape_array(call, region):
            continue  # `np.array(<shape>)` is the shape itself: its items are the same ints
        twin = TWINS.get(name)
        if twin is None:
            region.blockers.append(f"`numpy.{name}` has no torch twin in onnxfix's table")
            continue
        if any(k.arg is None or k.arg == "out" for k in call.keywords):
            region.blockers.append(f"`numpy.{name}` is called with `out=` or `**kwargs`")
        region.blockers.extend(argument_blockers(name, call, region.array_lists, _sequence_names(call, ctx)))
        region.blockers.extend(non_array_arguments(call, name, region))
        region.blockers.extend(foreign_elements(call, ctx))
        if twin.no_constant_args and any(isinstance(a, ast.Constant) for a in call.args):
            region.blockers.append(f"`torch.{twin.torch}` needs tensor arguments")
        _note_difference(region, twin, f"`numpy.{name}` and `torch.{twin.torch}`")
        if name == "arange" and not all(
            ctx.sizes.is_size(a) or (isinstance(a, ast.Constant) and isinstance(a.value, int))
            for a in call.args + [k.value for k in call.keywords if k.arg != "dtype"]
        ):
            # Whatever the dtype: NumPy computes start + i * step in float64 and rounds once,
            # torch's arange kernel computes them its own way (measured, NumPy 2.4, torch 2.13:
            # 18 of the 100 float32 values of arange(0, 10, 0.1) differ); without a dtype NumPy's
            # result is float64 where torch's is float32.
            region.inexact.append("`numpy.arange` of non-integer arguments: NumPy computes its values in float64 "
                                  "(and defaults to float64), torch's arange otherwise")
    for call, name in [*region.methods, *region.constant_methods]:
        twin = method_twin(name)
        if name == "ravel" and (call.args or call.keywords):
            region.blockers.append("`ndarray.ravel` with an `order` (Tensor.ravel is C order only)")
        if any(k.arg is None or k.arg == "out" for k in call.keywords) or (
                len(call.args) > 1 and name not in VARIADIC_METHODS):
            region.blockers.append(f"`ndarray.{name}` is called with `out=`, `**kwargs` or more than an axis")
        region.blockers.extend(method_blockers(call, name, region))
        if name == "cumsum" and not call.args and not has_keyword(call, "axis"):
            region.blockers.append("`ndarray.cumsum` without an axis flattens (`Tensor.cumsum` needs a dim)")
        _note_difference(region, twin, f"`ndarray.{name}` and `Tensor.{twin.torch}`")
        if region.scalar_into_tensor(call, ctx.parent(call)):
            region.inexact.append(
                f"the NumPy scalar of `ndarray.{name}` becomes a 0-d tensor in arithmetic with a tensor "
                f"(a `numpy.bool_` promotes differently)")
    for sink in region.sinks:
        if len(sink.args) != 1 or any(k.arg not in SINK_KEYWORDS for k in sink.keywords):
            region.blockers.append("a conversion back to torch has arguments other than `dtype=` and `device=`")
    for node in nodes:
        if isinstance(node, ast.BinOp) and region.is_ndarray(node):
            scalar = _python_float_side(node, region)
            if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and scalar is not None:
                region.float_scalars.append(scalar)
            elif isinstance(node.op, (ast.Div, ast.Pow)) or scalar is not None:
                region.inexact.append("NumPy and torch promote int/float arithmetic differently")
    _check_escapes(region, nodes)


def _note_difference(region: Region, twin: Twin, pair: str) -> None:
    if twin.differs:
        region.inexact.append(f"{pair} may differ: {twin.differs}")
    elif not twin.exact:
        region.rounding.append(f"{pair} may differ in the last bits")


def _check_escapes(region: Region, nodes: list[ast.AST]) -> None:
    """Every ndarray must flow back into torch; an ndarray returned or passed elsewhere
    blocks the fix."""
    ctx = region.ctx
    sink_args = {id(s.args[0]) for s in region.sinks if s.args}
    for node in nodes:
        if not region.is_ndarray(node) or id(node) in sink_args:
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id in region.ndarray_names for t in parent.targets
        ):
            continue
        if _unpacks_tuple_result(parent, ctx) and all(e.id in region.ndarray_names for e in parent.targets[0].elts):
            continue  # the value of `m, e = np.frexp(a)`
        if isinstance(parent, ast.Tuple) and _unpacks_tuple_result(ctx.parent(parent), ctx) and node.id in region.ndarray_names:
            continue  # `m` of `m, e = np.frexp(a)`
        if region.is_ndarray(parent) or _is_argument_of_region_call(parent, region, node):
            continue
        if isinstance(parent, ast.Attribute) and parent.attr in ("shape", "ndim"):
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "dtype" and any(
                ctx.parent(parent) is call and name in TYPE_LIMITS for call, name in region.calls):
            continue  # `np.finfo(a.dtype)`: its torch twin takes the tensor's dtype
        if isinstance(parent, ast.Attribute) and region.ndarray_method(ctx.parent(parent)):
            continue  # the receiver of `a.sum()`
        if region.scalar_into_tensor(node, parent):
            continue  # `x + a.sum()`
        if region.is_shape_item(parent):
            continue  # hw[0] of a shape array: an int
        if isinstance(parent, (ast.List, ast.Tuple)) and _is_argument_of_region_call(ctx.parent(parent), region, parent):
            continue
        if isinstance(parent, ast.Call) and converts_argument(parent, node, ctx.qualname(parent.func)):
            continue
        if in_array_list(node, parent, region):
            continue
        region.blockers.append(f"the array `{ctx.segment(node)[:40]}` is used outside torch")
    for name in region.array_lists - region.ndarray_names:  # an array name's reads are checked above
        for use in nodes:
            if isinstance(use, ast.Name) and use.id == name and isinstance(use.ctx, ast.Load) and not (
                    in_array_list(use, ctx.parent(use), region)
                    or _is_argument_of_region_call(ctx.parent(use), region, use)):
                region.blockers.append(f"the list of arrays `{name}` is used outside torch")
                break


def _is_argument_of_region_call(parent: ast.AST | None, region: Region, node: ast.AST) -> bool:
    return (
        isinstance(parent, ast.Call)
        and any(parent is call for call, _ in region.calls)
        and (node in parent.args or any(k.value is node for k in parent.keywords))
    )


def _python_float_side(node: ast.BinOp, region: Region) -> ast.expr | None:
    """The side of array arithmetic that is a Python float: `2.0`, `float(k)`."""
    for side in (node.left, node.right):
        if isinstance(side, ast.Constant) and isinstance(side.value, float):
            return side
        if (
            isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and side.func.id == "float"
            and region.ctx.is_builtin("float") and len(side.args) == 1 and not side.keywords
        ):
            return side
    return None


def region_message_suffix(region: Region) -> str:
    if region.blockers:
        return f"; no automatic fix: {region.blockers[0]}"
    if region.unsafe:
        return f"; fix is unsafe: {region.unsafe[0]}"
    return ""


