"""ONX603: a loop over the batch in chunks -> one chunk, the whole batch, while an exporter traces.

    for x in range(0, samples_in.shape[0], batch_number):     # ComfyUI's VAE.decode
        samples = samples_in[x:x + batch_number]
        pixel_samples[x:x + batch_number] = decode(samples)

    for i in range((batch_size_attention - 1) // self.slice_size + 1):   # diffusers' sliced attention
        start_idx = i * self.slice_size
        end_idx = (i + 1) * self.slice_size
        hidden_states[start_idx:end_idx] = torch.bmm(attn(query[start_idx:end_idx]), ...)

The chunks exist to bound memory. The header becomes `for x, _onnx_step in _onnx_batch_chunks(0,
samples_in.shape[0], batch_number):` (with the chunk count, `(0, N, S, count)`) and the step in the
body `_onnx_step`: in eager the same starts and step; while an exporter traces one chunk of the
whole batch, so neither torch.export (a `range` over a symbolic size fixes the size) nor the legacy
tracer (the example's chunks unrolled) keeps the example's batch. The loop index may only cut rows
(the first subscript of a slice, directly or through names the body binds from it).
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.control_flow.loop_parts import rebound_by_other_loops
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.attr_changes import CONTAINER_MUTATORS
from onnxfix.rewriter.binding_flow import free_reads
from onnxfix.rewriter.bindings import reaching_value
from onnxfix.rewriter.evidence import all_ints
from onnxfix.rewriter.none_defaults import is_none_literal
from onnxfix.rewriter.rule import Edit, Fix, Helper
from onnxfix.rewriter.statements import block_of, name_loads
from onnxfix.rewriter.tensors import in_place_method
from onnxfix.rewriter.tree_walk import walk

BATCH_CHUNKS = Helper("_onnx_batch_chunks", helper_source("batch_chunks"))
STEP = "_onnx_step"
WHY_UNSAFE = ("while an exporter traces, the body runs once on the whole batch instead of chunk by chunk (eager "
              "keeps the chunks): the same rows only when the body treats every row on its own (no statistic "
              "over the chunk's rows, no chunk-sized constant)")


def chunk_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `for x in range(0, N, S)` cutting `[x:x + S]` rows, or `for i in
    range(ceil(N / S))` cutting `[i * S:(i + 1) * S]` rows."""
    if node.orelse or (isinstance(node.target, ast.Name) and _read_after(node.target.id, node, ctx)):
        return None, ""
    return _chunks_fix(node, node.body, ctx)


def chunk_range_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `torch.cat([f(x[i:i + S]) for i in range(0, N, S)])` (a model
    run over the batch in chunks, the outputs concatenated along dim 0)."""
    comprehension = ctx.parent(node)
    if not isinstance(comprehension, (ast.ListComp, ast.GeneratorExp)) or node.ifs or len(comprehension.generators) != 1 \
            or not _concatenated_along_rows(comprehension, ctx):
        return None, ""
    return _chunks_fix(node, [comprehension.elt], ctx)


def _chunks_fix(node: ast.For | ast.comprehension, body: list[ast.AST], ctx: FunctionContext) -> tuple[Fix | None, str]:
    header = _header(node, ctx)
    if header is None or not isinstance(node.target, ast.Name):
        return None, ""
    arguments, step, counted = header
    index = node.target.id
    if any(isinstance(n, (ast.Break, ast.Return, ast.Yield, ast.YieldFrom)) for n in _walk(body)):
        return None, ""
    if any(isinstance(n, ast.Name) and n.id == STEP for n in _walk(body)):
        return None, ""  # a chunk loop fixed inside this one: its step would replace this one's
    bound_nodes = _chunk_bounds(body, index, step, counted)
    if bound_nodes is None:
        return None, ""
    texts = [a if isinstance(a, str) else ctx.segment(a) for a in arguments]
    new_header = f"{index}, {STEP} in _onnx_batch_chunks({', '.join(texts)})"
    start = ctx.file.source.span(node.target)[0]
    edits = [Edit(start, ctx.file.source.span(node.iter)[1], new_header)]
    edits += [ctx.replace(n, STEP) for n in _walk(body) if id(n) in bound_nodes and _same(n, step)]
    return Fix("Run the chunk loop as one chunk of the whole batch under export", tuple(edits), safe=False,
               imports=("torch",), helpers=(BATCH_CHUNKS,)), WHY_UNSAFE


def _header(node: ast.For | ast.comprehension, ctx: FunctionContext) -> tuple[list[ast.expr | str], ast.expr, bool] | None:
    """(the helper's arguments, as nodes or text, the step, whether the loop counts chunks) of `range(A, N, S)` or of
    `range(C)` with C the chunk count of N rows by S: `(N - 1) // S + 1`, `(N + S - 1) // S`,
    `-(-N // S)`, `math.ceil(N / S)`."""
    call = node.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
            and ctx.is_builtin("range") and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args)):
        return None
    if len(call.args) == 3:
        start, stop, step = call.args
        if isinstance(step, ast.UnaryOp) or (isinstance(step, ast.Constant) and not (type(step.value) is int and step.value > 0)):
            return None  # chunks walked backwards (`range(n, 0, -s)`): not the rows from the start
        return ([start, stop, step], step, False) if ctx.sizes.is_size(stop) else None
    if len(call.args) != 1:
        return None
    parts = _chunk_count(call.args[0], ctx) or _chunk_size_of_count(node, call.args[0], ctx)
    if parts is None:
        return None
    total, step = parts
    return (["0", total, step, call.args[0]], step, True) if ctx.sizes.is_size(total) else None


def _chunk_size_of_count(node: ast.For | ast.comprehension, count: ast.expr, ctx: FunctionContext) -> tuple[ast.expr, ast.expr] | None:
    """(N, S) where the loop runs `range(C)` for a given chunk count C and cuts rows `[i * S:...]` by
    a name S bound once to the ceiling division of N by C (TabPFN's attention in
    `num_iterations` sub-batches of `sub_batch = (N + num_iterations - 1) // num_iterations`
    rows): the C chunks of S rows cover the N rows as well."""
    if not isinstance(node.target, ast.Name):
        return None
    body = node.body if isinstance(node, ast.For) else [ctx.parent(node).elt]
    steps = {n.right.id for n in _walk(body) if _is(n, ast.Mult) and _name(n.left, node.target.id)
             and isinstance(n.right, ast.Name)}
    if len(steps) != 1:
        return None
    values = ctx.assignments(next(iter(steps)))
    parts = _chunk_count(values[0], ctx) if len(values) == 1 and isinstance(values[0], ast.expr) else None
    if parts is None or not _same(parts[1], count):
        return None
    if any(isinstance(n, ast.Name) and len(ctx.assignments(n.id)) > 1 for n in (*walk(parts[0]), *walk(count))):
        return None  # N or C bound again between S's binding and the loop: the chunks would not cover N
    step = next(n.right for n in _walk(body) if _is(n, ast.Mult) and _name(n.left, node.target.id))
    return parts[0], step


def _chunk_count(count: ast.expr, ctx: FunctionContext) -> tuple[ast.expr, ast.expr] | None:
    """(N, S) of a ceiling division of N by S."""
    if _is(count, ast.Add) and _one(count.right) and _is(count.left, ast.FloorDiv) and _is(count.left.left, ast.Sub) \
            and _one(count.left.left.right):  # (N - 1) // S + 1
        return count.left.left.left, count.left.right
    if _is(count, ast.FloorDiv) and _is(count.left, ast.Sub) and _is(count.left.left, ast.Add) \
            and _one(count.left.right) and _same(count.left.left.right, count.right):  # (N + S - 1) // S
        return count.left.left.left, count.right
    if isinstance(count, ast.UnaryOp) and isinstance(count.op, ast.USub) and _is(count.operand, ast.FloorDiv) \
            and isinstance(count.operand.left, ast.UnaryOp) and isinstance(count.operand.left.op, ast.USub):  # -(-N // S)
        return count.operand.left.operand, count.operand.right
    if isinstance(count, ast.Call) and isinstance(count.func, ast.Name) and count.func.id == "int" and len(count.args) == 1:
        count = count.args[0]  # int(math.ceil(N / S))
    if isinstance(count, ast.Call) and ctx.qualname(count.func) == "math.ceil" and len(count.args) == 1 \
            and _is(count.args[0], ast.Div):
        return count.args[0].left, count.args[0].right
    return None


def _chunk_bounds(body: list[ast.AST], index: str, step: ast.expr, counted: bool) -> set[int] | None:
    """The ids of the nodes of the chunk bounds (the row slices and the names bound to a bound),
    where the step is replaced; None unless every read of the index is a chunk bound (`x`,
    `x + S`, `i * S`, `(i + 1) * S`) that cuts rows, directly or through a name the body binds to
    it, and some tensor is cut."""
    bounds = _bound_names(body, index, step, counted)
    if bounds is None:
        return None
    slices = [s for s in map(_row_slice, _walk(body)) if s is not None and _uses(s, index, bounds)]
    if not slices or any(s.step is not None or not all(b is not None and _is_bound(b, index, step, counted, bounds)
                                                      for b in (s.lower, s.upper)) for s in slices):
        return None
    allowed = {id(n) for root in [*slices, *bounds.values()] for n in walk(root)}
    reads = [n for n in _walk(body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
             and (n.id == index or n.id in bounds)]
    return allowed if all(id(n) in allowed for n in reads) else None


def _row_slice(node: ast.AST) -> ast.Slice | None:
    """The slice of dim 0 of a subscript (`x[a:b]`, `x[a:b, ...]`)."""
    if not isinstance(node, ast.Subscript):
        return None
    first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
    return first if isinstance(first, ast.Slice) else None


def _bound_names(body: list[ast.AST], index: str, step: ast.expr, counted: bool) -> dict[str, ast.expr] | None:
    """Names the body binds once, to a chunk bound (`start_idx = i * self.slice_size`); None if one is
    bound twice."""
    bounds: dict[str, ast.expr] = {}
    for statement in body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) \
                and _uses(statement.value, index, bounds):
            if not _is_bound(statement.value, index, step, counted, bounds):
                continue  # a value computed from the chunk (its reads are checked where they are)
            if statement.targets[0].id in bounds:
                return None
            bounds[statement.targets[0].id] = statement.value
    return bounds


def _is_bound(value: ast.expr, index: str, step: ast.expr, counted: bool, bounds: dict[str, ast.expr]) -> bool:
    if isinstance(value, ast.Name) and value.id in bounds:
        return True
    if counted:  # i * S, (i + 1) * S
        if _is(value, ast.Mult) and _same(value.right, step):
            factor = value.left
            return _name(factor, index) or (_is(factor, ast.Add) and _name(factor.left, index) and _one(factor.right))
        return False
    if _name(value, index):  # x, x + S, min(x + S, N)
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "min" and len(value.args) == 2:
        value = value.args[0]
    return _is(value, ast.Add) and _name(value.left, index) and _same(value.right, step)


def _uses(node: ast.AST, index: str, bounds: dict[str, ast.expr]) -> bool:
    return any(isinstance(n, ast.Name) and (n.id == index or n.id in bounds) for n in walk(node))


def _read_after(index: str, loop: ast.For, ctx: FunctionContext) -> bool:
    """The index read after the loop (Python keeps it bound: the last start in eager, 0 under
    export), other loops binding their own `i` aside."""
    end = (loop.end_lineno, loop.end_col_offset)
    rebinding = rebound_by_other_loops(index, loop, ctx.fn.node)
    return any(isinstance(n, ast.Name) and n.id == index and isinstance(n.ctx, ast.Load) and id(n) not in rebinding
               and (n.lineno, n.col_offset) > end for n in walk(ctx.fn.node))


def _walk(body: list[ast.AST]):
    for root in body:
        yield from walk(root)


def _is(node: ast.AST, op: type) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, op)


def _one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 and type(node.value) is int


def _name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


# ------------------------------------------------------------ the batch split into parts of a size

BATCH_SPLIT = Helper("_onnx_batch_split", helper_source("batch_split"))


def batch_split_parts(node: ast.AST, ctx: FunctionContext) -> tuple[ast.expr, ast.expr] | None:
    """(tensor, part size) of `X.split(k)` / `torch.split(X, k)` along dim 0 (the default, `0` or
    `dim=0`) with `k` a part size (not a list of sizes), `X` a tensor of the model's inputs."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr != "split":
        return None
    arguments = list(node.args)
    if ctx.qualname(node.func) == "torch.split":
        tensor, arguments = (arguments[0], arguments[1:]) if arguments else (None, [])
    elif ctx.qualname(node.func) is None:
        tensor = node.func.value
    else:
        return None
    dims = [*arguments[1:], *(k.value for k in node.keywords if k.arg == "dim")]
    sizes = arguments[:1] + [k.value for k in node.keywords if k.arg == "split_size_or_sections"]
    if tensor is None or len(sizes) != 1 or len(dims) > 1 or len(node.keywords) > len(dims) + (not arguments):
        return None
    if dims and not (isinstance(dims[0], ast.Constant) and dims[0].value == 0 and type(dims[0].value) is int):
        return None
    if isinstance(sizes[0], (ast.List, ast.Tuple, ast.ListComp)):
        return None
    if ctx.qualname(node.func) != "torch.split" and not ctx.tensors.is_tensor(tensor):
        return None  # `s.split(...)` of a string; `torch.split` takes tensors only
    return tensor, sizes[0]


def chunk_split_comprehension(node: ast.comprehension, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `torch.cat([f(z) for z in X.split(k)])` (also bound to a name
    only concatenated, diffusers' `decoded_slices = [...]; torch.cat(decoded_slices)`): the split
    becomes `_onnx_batch_split(X, k)`, the parts in eager and `(X,)` while an exporter traces."""
    parts = batch_split_parts(node.iter, ctx)
    comprehension = ctx.parent(node)
    if parts is None or not isinstance(comprehension, (ast.ListComp, ast.GeneratorExp)) or node.ifs \
            or len(comprehension.generators) != 1 or not _concatenated_along_rows(comprehension, ctx):
        return None, ""
    tensor, size = parts
    if isinstance(size, ast.Name) and not all(isinstance(v, ast.expr) and ctx.ints.is_int(v) for v in ctx.assignments(size.id)):
        return None, ""  # a list of part sizes (one per image), or a size nothing proves an int
    text = f"_onnx_batch_split({ctx.segment(tensor)}, {ctx.segment(size)})"
    return Fix("Split the batch into one part under export", (ctx.replace(node.iter, text),), safe=False,
               imports=("torch",), helpers=(BATCH_SPLIT,)), WHY_UNSAFE


def chunk_split_loop(node: ast.For, ctx: FunctionContext) -> tuple[Fix | None, str]:
    """(fix, why it is unsafe) for `for part in X.split(k):` (or over a name bound once to that split
    and read only there) whose results are appended to lists that after the loop are only
    concatenated along rows (Wan-Animate's motion encoder over `torch.split(frames, batch)`): the
    split becomes `_onnx_batch_split(X, k)`, as chunk_split_comprehension makes it."""
    if node.orelse or not isinstance(node.target, ast.Name) or ctx.compiled_by_torchscript:
        return None, ""
    split = _split_iterated(node.iter, ctx)
    parts = batch_split_parts(split, ctx) if split is not None else None
    if parts is None or any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom))
                            for n in _walk(node.body)):
        return None, ""
    tensor, size = parts
    if not _part_size(size, ctx):
        return None, ""
    lists = {n.func.value.id for n in _walk(node.body) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "append" and isinstance(n.func.value, ast.Name)}
    bound = {n.id for n in _walk(node.body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {node.target.id}
    if not lists or not all(_only_concatenated(name, node, ctx) for name in lists) \
            or any(_read_after(name, node, ctx) for name in bound - lists):
        return None, ""  # a part's value read after the loop: the last part in eager, the whole batch under export
    if free_reads(node.body, frozenset({node.target.id})) & bound or _changes_outside(node.body, bound | lists):
        return None, ""  # a state carried from part to part (`h = self.cell(p, h)`), or written outside the loop
    text = f"_onnx_batch_split({ctx.segment(tensor)}, {ctx.segment(size)})"
    return Fix("Split the batch into one part under export", (ctx.replace(split, text),), safe=False,
               imports=("torch",), helpers=(BATCH_SPLIT,)), WHY_UNSAFE


def _changes_outside(body: list[ast.stmt], own: set[str]) -> bool:
    """The body writes a value it did not make: an item or attribute stored into a name it does not
    bind (`meta[j] = ...`, `self.buf = ...`), a container method or an in-place tensor method on one
    (`sizes.extend(...)`, `acc.add_(...)`)."""
    for n in _walk(body):
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store):
            root = n.value
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in own):
                return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id not in own and (n.func.attr in CONTAINER_MUTATORS or in_place_method(n.func.attr)):
            return True
    return False


def _split_iterated(iterable: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """The split the loop runs over: its iterable, or the value of a name bound once to it and read
    only by the loop."""
    if not isinstance(iterable, ast.Name):
        return iterable
    values = ctx.assignments(iterable.id)
    if len(values) != 1 or not isinstance(values[0], ast.expr) or name_loads(iterable.id, ctx) != 1 \
            or ctx.is_parameter(iterable.id):
        return None
    return values[0]


def _part_size(size: ast.expr, ctx: FunctionContext) -> bool:
    """A part size, not a list of sizes (one per image, Mistral3's `split(tokens_per_image)`): an
    int, by the code or by every value a recorded run saw; through the value a name's read sees,
    and `a or b` whose last operand is one and the others are ones or None (Wan-Animate's
    `motion_encode_batch_size or self.motion_encoder_batch_size`, the argument left at None)."""
    if isinstance(size, (ast.List, ast.Tuple, ast.ListComp)):
        return False
    if isinstance(size, ast.Name):
        reaching = reaching_value(size, ctx)
        if reaching is not None:
            return _part_size(reaching, ctx)
        values = ctx.assignments(size.id)
        if values and all(isinstance(v, ast.expr) and ctx.ints.is_int(v) for v in values):
            return True
    if isinstance(size, ast.BoolOp) and isinstance(size.op, ast.Or):
        return all(_int_or_none(v, ctx) for v in size.values[:-1]) and _part_size(size.values[-1], ctx)
    return bool(ctx.ints.is_int(size)) or all_ints(ctx.observed(size))


def _int_or_none(value: ast.expr, ctx: FunctionContext) -> bool:
    if is_none_literal(value) or ctx.ints.is_int(value):
        return True
    observed = ctx.observed(value)
    return bool(observed) and all(v.kind in ("int", "none") for v in observed)


def _only_concatenated(name: str, loop: ast.For, ctx: FunctionContext) -> bool:
    """``name`` is bound to `[]` right before the loop (no other binding between), appended to in
    it, and every read after it that sees that list is `torch.cat`'s list along dim 0 (`encoded =
    torch.cat(encoded)` rebinding the name is one): the parts' results joined again into rows."""
    empty = _empty_list_before(name, loop, ctx)
    if empty is None:
        return False
    inside = {id(n) for n in walk(loop)}
    for read in (n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)):
        parent = ctx.parent(read)
        if id(read) in inside:
            if not (isinstance(parent, ast.Attribute) and parent.attr == "append"):
                return False
        elif read.lineno > loop.end_lineno and reaching_value(read, ctx) is not empty:
            if any(isinstance(v, ast.expr) and v is not empty and v.lineno < loop.lineno for v in ctx.assignments(name)) \
                    or reaching_value(read, ctx) is None:
                return False  # a read the list may reach (not decided straight-line): left alone
        elif not _cat_along_rows(read, parent, ctx):
            return False
    return True


def _empty_list_before(name: str, loop: ast.For, ctx: FunctionContext) -> ast.List | None:
    """The `[]` bound to ``name`` by one of the statements right before the loop in its block that
    each bind a name to `[]` (`a = []; b = []; for ...`)."""
    block = block_of(loop, ctx)
    if not block:
        return None
    for previous in reversed(block[:block.index(loop)]):
        if not (isinstance(previous, ast.Assign) and len(previous.targets) == 1 and isinstance(previous.targets[0], ast.Name)
                and isinstance(previous.value, ast.List) and not previous.value.elts):
            return None
        if previous.targets[0].id == name:
            return previous.value
    return None


def _concatenated_along_rows(comprehension: ast.expr, ctx: FunctionContext) -> bool:
    """The comprehension's list is `torch.cat`'s first argument along dim 0, or bound to a name
    whose one read is that."""
    parent = ctx.parent(comprehension)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        reads = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if len(reads) != 1 or len(ctx.assignments(name)) != 1:
            return False
        comprehension, parent = reads[0], ctx.parent(reads[0])
    return _cat_along_rows(comprehension, parent, ctx)


def _cat_along_rows(joined: ast.expr, parent: ast.AST, ctx: FunctionContext) -> bool:
    """``parent`` is `torch.cat(joined)` along dim 0."""
    if not (isinstance(parent, ast.Call) and ctx.qualname(parent.func) in ("torch.cat", "torch.concat")
            and parent.args and parent.args[0] is joined):
        return False
    dims = [*parent.args[1:], *(k.value for k in parent.keywords if k.arg == "dim")]
    return not dims or (len(dims) == 1 and isinstance(dims[0], ast.Constant) and dims[0].value == 0)
