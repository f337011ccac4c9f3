"""The fix of a NumPy region: each NumPy call, ndarray method, `.numpy()` source and conversion
back translated into torch as one group of edits, behind an eager guard where the torch twin
may differ from NumPy (onnxfix/patterns/numpy_interop/region.py decides which)."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.numpy_interop.element_loops import ElementLoop, bare
from onnxfix.patterns.numpy_interop.calls import CONSTRUCTOR_DTYPES, SINKS, binds_shape_array, has_keyword, shape_array_argument
from onnxfix.patterns.numpy_interop.region import Region
from onnxfix.patterns.numpy_interop.twins import (
    NUMPY_DTYPES, PYTHON_TYPE_DTYPES, TWINS, Twin, int_repetitions, literal_axes, method_twin,
)
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.precedence import IFEXP, precedence
from onnxfix.rewriter.rule import Edit, Fix, Helper
from onnxfix.rewriter.statements import comments_outside, replace_statements, statement_removal
from onnxfix.rewriter.tree_walk import walk


def region_fix(region: Region) -> Fix | None:
    if region.blockers or not (region.sources or region.calls or region.sinks or region.methods or region.element_loops):
        return None
    ctx = region.ctx
    torch_name, imports = ctx.torch_name()
    edits: list[Edit] = []
    helpers: list[Helper] = []
    for source in region.sources:
        edits.append(ctx.delete_suffix(source.func, source))
    for call, name in [*region.calls, *region.constant_calls]:
        if shape_array_argument(call, ctx) is not None and binds_shape_array(call, region):
            edits.extend(_unwrap_call(call, ctx))
        else:
            edits.extend(_translate_call(call, TWINS[name], torch_name, ctx))
            helpers.extend(_helpers(TWINS[name], helpers))
    for call, name in [*region.methods, *region.constant_methods]:
        edits.extend(_translate_method(call, method_twin(name), torch_name, ctx))
    for value in region.dtype_assignments:  # `dtype = np.float32` read only by the astype calls
        edits.append(ctx.replace(value, f"{torch_name}.{NUMPY_DTYPES[ctx.qualname(value)[6:]]}"))
    for sink in region.sinks:
        edits.extend(_unwrap_sink(sink, ctx))
    for scalar in region.float_scalars:  # promotes as NumPy's Python float does
        edits.append(ctx.replace(scalar, f"{torch_name}.tensor({ctx.segment(scalar)}, dtype={torch_name}.float64)"))
    for found in region.element_loops:
        edits.extend(_vectorize_loop(found, ctx))
        helpers.extend(Helper(f"_onnx_{key}", helper_source(key)) for key in found.helpers
                       if f"_onnx_{key}" not in {helper.name for helper in helpers})
    edits = list(dict.fromkeys(edits))  # a dtype inside nested twin calls is found from each call
    title = "Compute in torch instead of NumPy"
    if region.guarded is not None:
        edits = _guard_edits(edits, region, torch_name)  # eager keeps the NumPy original
        title += " while exporting (NumPy in eager)"
    fn = ctx.fn.node
    return Fix(
        title=title,
        edits=tuple(edits),
        safe=not region.unsafe,
        imports=(*imports, "torch") if helpers and "torch" not in imports else imports,
        helpers=tuple(helpers),
        group=f"numpy:{ctx.file.display_path}:{fn.lineno}:{fn.col_offset}",
    )


def _keyword_renames(call: ast.Call, twin: Twin, ctx: FunctionContext) -> list[Edit]:
    renames = dict(twin.renames)
    edits = []
    for keyword in call.keywords:
        if keyword.arg in renames:
            start = ctx.file.source.offset(keyword.lineno, keyword.col_offset)
            edits.append(Edit(start, start + len(keyword.arg), renames[keyword.arg]))
    return edits


def _dtype_edits(call: ast.Call, torch_name: str, ctx: FunctionContext) -> list[Edit]:
    """`np.float32` -> `torch.float32` inside the call (not its function)."""
    edits = []
    for sub in walk(call):
        if isinstance(sub, ast.Attribute) and sub is not call.func:
            qualname = ctx.qualname(sub)
            if qualname and qualname.startswith("numpy.") and qualname[6:] in NUMPY_DTYPES:
                edits.append(ctx.replace(sub, f"{torch_name}.{NUMPY_DTYPES[qualname[6:]]}"))
    return edits


def _helpers(twin: Twin, present: list[Helper]) -> list[Helper]:
    """The helper functions (dependencies first) a twin computed by an onnxfix helper needs."""
    if twin.helper is None:
        return []
    from onnxfix.decompositions import helper_chain

    names = {helper.name for helper in present}
    return [Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain(twin.helper) if f"_onnx_{key}" not in names]


def _translate_call(call: ast.Call, twin: Twin, torch_name: str, ctx: FunctionContext) -> list[Edit]:
    if twin is TWINS["indices"]:
        return _index_grids(call, torch_name, ctx)
    function = f"_onnx_{twin.helper}" if twin.helper else f"{torch_name}.{twin.torch}"
    edits = [ctx.replace(call.func, function), *_keyword_renames(call, twin, ctx)]
    edits += _dtype_edits(call, torch_name, ctx)
    source = ctx.file.source
    if twin.packs:  # np.append(a, b, axis=0) -> torch.cat((a, b), dim=0)
        edits += [Edit(source.span(call.args[0])[0], source.span(call.args[0])[0], "("),
                  Edit(source.span(call.args[twin.packs - 1])[1], source.span(call.args[twin.packs - 1])[1], ")")]
    if twin.torch == "tile" and int_repetitions(call):  # np.tile(a, 2) -> torch.tile(a, (2,))
        edits.append(ctx.replace(call.args[1], f"({ctx.segment(call.args[1])},)"))
    axes = literal_axes(call) if twin.axes_tuple else None
    if axes is not None and not isinstance(axes, (ast.Tuple, ast.List)):  # np.flip(a, 0) -> torch.flip(a, (0,))
        edits.append(ctx.replace(axes, f"({ctx.segment(axes)},)"))
    arguments = [*call.args, *(k.value for k in call.keywords)]
    for keyword, value in twin.defaults:
        if not has_keyword(call, keyword):  # after the last argument: a trailing comma stays last
            end = source.span(max(arguments, key=lambda a: source.span(a)[1]))[1] if arguments else source.span(call)[1] - 1
            edits.append(Edit(end, end, f", {keyword}={value}" if arguments else f"{keyword}={value}"))
    if twin.float64_default and not has_keyword(call, "dtype") and len(call.args) <= twin.dtype_position:
        last = (call.args + [k.value for k in call.keywords])[-1:] if (call.args or call.keywords) else []
        if last:
            end = source.span(last[0])[1]
            edits.append(Edit(end, end, f", dtype={torch_name}.float64"))
        else:
            end = source.span(call)[1] - 1
            edits.append(Edit(end, end, f"dtype={torch_name}.float64"))
    return edits


def _index_grids(call: ast.Call, torch_name: str, ctx: FunctionContext) -> list[Edit]:
    """`np.indices(shape, dtype=D)` -> `torch.stack(torch.meshgrid(*[torch.arange(n, dtype=D) for n
    in shape], indexing="ij"))`: the shape argument stays in place (edits inside it still apply)."""
    source = ctx.file.source
    call_start, call_end = source.span(call)
    shape_start, shape_end = source.span(call.args[0])
    dtypes = [k.value for k in call.keywords if k.arg == "dtype"]
    dtype = f", dtype={torch_name}.{NUMPY_DTYPES[dtypes[0].attr]}" if dtypes else ""
    opening = f"{torch_name}.stack({torch_name}.meshgrid(*[{torch_name}.arange(_onnx_n{dtype}) for _onnx_n in "
    return [Edit(call_start, shape_start, opening), Edit(shape_end, call_end, '], indexing="ij"))')]


def _translate_method(call: ast.Call, twin: Twin, torch_name: str, ctx: FunctionContext) -> list[Edit]:
    """`a.max(axis=1)` -> `a.amax(dim=1)`: the method renamed to its Tensor twin, keywords and
    NumPy dtypes as `_translate_call` renames them."""
    edits = _keyword_renames(call, twin, ctx) + _dtype_edits(call, torch_name, ctx)
    if twin.torch != call.func.attr:
        start = ctx.dot_span(call.func)[0] + 1
        edits.append(Edit(start, start + len(call.func.attr), twin.torch))
    if call.func.attr == "astype":  # a.astype(D) -> a.to(D, copy=True): astype always copies
        dtype = call.args[0]
        if isinstance(dtype, ast.Constant):
            edits.append(ctx.replace(dtype, f"{torch_name}.{NUMPY_DTYPES[dtype.value]}"))
        elif isinstance(dtype, ast.Name) and dtype.id in PYTHON_TYPE_DTYPES:
            edits.append(ctx.replace(dtype, f"{torch_name}.{PYTHON_TYPE_DTYPES[dtype.id]}"))
        end = ctx.file.source.span(dtype)[1]
        edits.append(Edit(end, end, ", copy=True"))
    return edits


def _vectorize_loop(found: ElementLoop, ctx: FunctionContext) -> list[Edit]:
    """The list, its loop and `np.array(tmp)` -> the loop's tensor expression at the conversion."""
    edits = [statement_removal(found.init, ctx), _loop_removal(found.loop, ctx)]
    parent = ctx.parent(found.collect)
    whole_value = isinstance(parent, (ast.Assign, ast.Return)) and parent.value is found.collect
    return [*edits, ctx.replace(found.collect, bare(found.expression) if whole_value else found.expression)]


def _loop_removal(loop: ast.For, ctx: FunctionContext) -> Edit | None:
    """The loop deleted, or replaced by its comments (each on its own line, at its indentation)."""
    comments = comments_outside(ctx, loop, [])
    if not comments:
        return statement_removal(loop, ctx)
    return replace_statements(ctx, loop, loop, comments[-1], comments[:-1])


def _unwrap_call(call: ast.Call, ctx: FunctionContext) -> list[Edit]:
    """`np.array(x.shape[-2:])` -> `x.shape[-2:]`: a torch.Size, whose items are the ints the
    array held as NumPy integers (the same values in every int or float context)."""
    source = ctx.file.source
    call_start, call_end = source.span(call)
    arg_start, arg_end = source.span(call.args[0])
    return [Edit(call_start, arg_start, ""), Edit(arg_end, call_end, "")]


def _unwrap_sink(sink: ast.Call, ctx: FunctionContext) -> list[Edit]:
    """torch.from_numpy(A) -> A; torch.tensor(name) -> name.clone() (it copied);
    torch.tensor(A, dtype=D) -> A.to(dtype=D, copy=True), torch.as_tensor(A, dtype=D) -> A.to(dtype=D);
    torch.Tensor(A) -> A.to(dtype=torch.get_default_dtype())."""
    source = ctx.file.source
    call_start, call_end = source.span(sink)
    arg_start, arg_end = source.span(sink.args[0])
    arg = sink.args[0]
    copying = SINKS[ctx.qualname(sink.func)] == "copy"
    copies = copying and isinstance(arg, (ast.Name, ast.Attribute, ast.Subscript))
    atomic = isinstance(arg, (ast.Name, ast.Call, ast.Attribute, ast.Subscript))
    opening, closing = ("", "") if atomic else ("(", ")")
    constructed = CONSTRUCTOR_DTYPES.get(ctx.qualname(sink.func))
    if constructed is not None:  # torch.LongTensor(A) -> A.to(dtype=torch.int64): shares A's memory when
        torch_name = ctx.torch_name()[0]  # the dtype is already that, copies otherwise, as the constructor
        keywords = [f"dtype={torch_name}.{constructed}", *(ctx.segment(k) for k in sink.keywords)]
        closing += f".to({', '.join(keywords)})"
    elif sink.keywords:  # dtype= / device=: Tensor.to takes them as they are
        keywords = [ctx.segment(k) for k in sink.keywords] + (["copy=True"] if copying else [])
        closing += f".to({', '.join(keywords)})"
    elif copies:
        closing += ".clone()"
    return [Edit(call_start, arg_start, opening), Edit(arg_end, call_end, closing)]


def _guard_edits(edits: list[Edit], region: Region, torch_name: str) -> list[Edit]:
    """Each guarded expression replaced by `(<edited> if torch.onnx.is_in_onnx_export() else
    <original>)`: both exporters set the flag while tracing, eager never does. Every edit lies
    in the node it was made for, so in a guarded expression."""
    source = region.ctx.file.source
    guarded = []
    for root in region.guarded:
        start, end = source.span(root)
        inside = sorted((e for e in edits if start <= e.start and e.end <= end), key=lambda e: (e.start, e.end))
        new, position = [], start
        for edit in inside:
            new += [source.text[position:edit.start], edit.text]
            position = edit.end
        new.append(source.text[position:end])
        loose = precedence(root) <= IFEXP or isinstance(root, (ast.Yield, ast.YieldFrom)) or (
            isinstance(root, ast.Tuple) and root.elts and source.span(root.elts[0])[0] == start)  # `a, b`
        edited, original = "".join(new), source.text[start:end]
        if edited == original:
            continue  # `x * a.argmax()`: the same text computes either way
        if loose:
            edited, original = f"({edited})", f"({original})"
        guarded.append(Edit(start, end, f"({edited} if {torch_name}.onnx.is_in_onnx_export() else {original})"))
    return guarded
