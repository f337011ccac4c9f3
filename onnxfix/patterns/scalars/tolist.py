"""ONX202: `.tolist()`."""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.decompositions import helper_source
from onnxfix.patterns.scalars.round_trip import sizes_round_trip
from onnxfix.patterns.scalars.uses import is_none_test
from onnxfix.patterns.scalars.values import assigned_name
from onnxfix.rewriter.bindings import parameter_reaches
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc
from onnxfix.rewriter.signatures import converts_argument
from onnxfix.rewriter.statements import reads_of_single_binding
from onnxfix.rewriter.tree_walk import walk


class TolistCall(Rule):
    code = "ONX202"
    name = "tensor-tolist"
    summary = "`.tolist()` turns a tensor into Python numbers"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `tensor.tolist()` in code that runs under export. Seen in the vision towers
            of Qwen2/2.5/3-VL, GLM-4V and others (`torch.split(t, lengths.tolist(), dim=2)`
            over `cu_seqlens`), and in per-image grid loops (`for t, h, w in grid_thw.tolist()`).
        """,
        why="""
            The legacy exporter records the list as constants (TracerWarning "Converting a
            tensor to a Python list might cause the trace to be incorrect"): `k = s.tolist();
            x * k[0] + k[1]` exported with s=[2, 3] always scales by 2 and adds 3. Measured on
            torch 2.13 (tests/test_values_exporters.py): silently wrong on other values. The
            dynamo exporter captures the values as unbacked SymInts/SymFloats and exports
            correctly, so the finding is shown when the project targets the legacy exporter.
        """,
        example="""
            def forward(self, x: torch.Tensor, s: torch.Tensor):
                k = s.tolist()
                return x * k[0] + k[1]
        """,
        use_instead="""
            def forward(self, x: torch.Tensor, s: torch.Tensor):
                return x * s[0] + s[1]
        """,
        fix_safety="""
            In general no automatic fix: the list can be indexed, iterated, compared or passed
            on, and keeping the tensor changes each of those uses differently (a 0-d tensor
            promotes types differently from a Python float; iterating a tensor yields tensors).
            One round trip is fixed: `.tolist()` of a 1-D tensor built from sizes, directly or
            through a name assigned in the statement before and read only there (TAPAS's
            `out_shape = torch.cat([torch.as_tensor([b * k]), torch.as_tensor(vector_shape,
            dtype=torch.long)])` then `torch.zeros(out_shape.tolist())`), becomes the list of
            those sizes (`torch.zeros([b * k, *vector_shape])`) and the name's statement goes.
            Recognized: `torch.tensor`/`torch.as_tensor` of a list of sizes or of a shape,
            `torch.cat` (dim 0) of those, `torch.stack` of `torch.tensor(size)` (ONX205's fix),
            with no `dtype=` but int64. Safe when every element is known to be an int (a shape
            item, `len`, integer arithmetic of those; a shape in a `torch.cat` with
            `dtype=torch.long`, as an empty shape builds a float tensor and the concatenation is
            promoted to float): the tensor holds each as an int64 and
            `.tolist()` gives the same int back. Unsafe when an element is not known to be an
            int (`b * self.k`): a float would come back rounded to float32 or truncated.
            Measured: tests/realworld/tapas_as_tensor.py exports OK under both exporters after
            the fixes (the dynamo exporter handles the round trip; its failure there was
            `torch.as_tensor` of a size, ONX205). And a list made only to be counted,
            `len(t.tolist())`, becomes `t.shape[0]` (safe: the same number for a tensor of one
            or more dims; for a 0-d tensor both raise); this one also matters to the dynamo
            exporter, which cannot list a tensor whose rows come from the data (Phi-3-vision's
            `if len(positions.tolist()) > 0:` after `nonzero`).
            A list used as a split's sizes (`torch.split(t, lengths.tolist(), dim=2)`, or a name
            assigned the list and read only there) becomes `_onnx_tensor_list(lengths)`: `.tolist()`
            itself but while the legacy exporter traces, where the same nesting of lists holds 0-d
            tensors, which the trace records as graph values (split sizes, size arguments and slice
            bounds take them). Safe: eager and torch.export run `.tolist()`. Under `onnxfix export`
            the same fix is offered for any `.tolist()` on a line where the legacy trace warned
            "Converting a tensor to a Python list" (GraniteMoE's
            router returns `expert_size.tolist()` to the experts' `inputs.split(expert_size)`), and
            the loop keeps it only if no exporter's verdict gets worse (a list of dict keys, or one
            checked with `isinstance(v, int)`, would not take tensors).
            A list of a 1-D tensor (an item of `torch.where(mask)` or `nonzero(as_tuple=True)`,
            `t.flatten()`, `t.view(-1)`, `t.nonzero()[:, k]`, changed by no in-place call) bound to
            a name read only as an index or an item of one (DBRX's experts: `token_list =
            token_idx.tolist()`, then `x[None, token_list]` and `top_weights[token_list,
            topk_list, None]`) is the tensor itself (`token_list = token_idx`): advanced indexing
            by a flat list of ints or bools and by the 1-D tensor it came from picks the same
            elements in the same layout. Unsafe all the same: the list's values are fixed when
            `.tolist()` runs, the tensor is read where the index is (the analysis does not follow
            every alias through which it could change in between). A 2-D tensor's nested list
            indexes as a tuple of indices, the tensor does not: no fix.
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://github.com/pytorch/pytorch/issues/42966",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "tolist" and not node.args and not node.keywords):
            return
        known = ctx.tensors.is_tensor(func.value)
        if not known and not (_forward_argument(func.value, ctx) and _packing_lengths_only(node, ctx)):
            return  # NumPy arrays and lists also have .tolist(); only a known tensor is reported
        counted = ctx.parent(node)
        if builtin_call(counted, ctx, frozenset({"len"})) and len(counted.args) == 1:
            yield self._length(counted, func.value, ctx)
            return
        sizes = sizes_round_trip(node, ctx)
        if sizes is not None:
            fix, note = sizes
            yield ctx.report(
                self, node,
                "`.tolist()` of a tensor built from sizes: the legacy exporter records them as constants; "
                "use the sizes" + note, fix=fix,
            )
            return
        message = "`.tolist()` turns a tensor into Python numbers: the legacy exporter records them as constants"
        if _packing_lengths_only(node, ctx):
            yield ctx.report(self, node, message + "; `pack_padded_sequence` takes its lengths as a tensor (as "
                             "the same int64 CPU tensor it makes of a list): pass it while the legacy exporter "
                             "traces", fix=_packing_fix(node, ctx))
            return
        indexed = _index_only_fix(node, ctx)
        if indexed is not None:
            yield ctx.report(self, node, message + "; the list of a 1-D tensor is only an index, which the "
                             "tensor is as well (unsafe: the list's values are fixed when it is made, the tensor is "
                             "read where it indexes)", fix=indexed)
            return
        fix = _tensor_list_fix(node, ctx)
        yield ctx.report(self, node, message + ("; keep them graph values while it traces" if fix else ""), fix=fix)

    def _length(self, counted: ast.Call, tensor: ast.expr, ctx: FunctionContext):
        """`len(t.tolist())` is `t.shape[0]`: the list of a tensor of one or more dims has one
        item per row (a 0-d tensor's is a number, whose `len` raises as `shape[0]` does). The
        dynamo exporter cannot make a list of a tensor with a data-dependent number of rows
        (Phi-3-vision's `if len(positions.tolist()) > 0:` after `nonzero`)."""
        text = f"{operand(ctx.segment(tensor), tensor, ATOM)}.shape[0]"
        fix = Fix("Count the rows without the list", (ctx.replace(counted, text),), safe=True)
        message = ("`len(t.tolist())` makes a Python list only to count it: the legacy exporter records the "
                   "count as a constant and the dynamo exporter cannot list a tensor whose size comes from the "
                   "data; use `t.shape[0]`")
        return ctx.report(self, counted, message, fix=fix, exporters=(LEGACY, DYNAMO))


# tensor attributes and methods that keep a tensor a tensor and read nothing else: a chain of them
# (`lengths.data.view(-1)`) can be read twice at no cost and is a tensor when its root is one
TENSOR_CHAIN = frozenset({"data", "view", "reshape", "flatten", "squeeze", "long", "int", "detach", "cpu",
                          "contiguous"})


def _chain_root(node: ast.expr) -> ast.Name | None:
    """The name under `lengths.data.view(-1)`: TENSOR_CHAIN attributes, and calls of them with
    constant arguments only."""
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Call) and not node.keywords and all(
                isinstance(a, ast.Constant) or (isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant))
                for a in node.args):
            node = node.func
        if not (isinstance(node, ast.Attribute) and node.attr in TENSOR_CHAIN):
            return None
        node = node.value
    return node


def _forward_argument(node: ast.expr, ctx: FunctionContext) -> bool:
    """`lengths.data.view(-1)` where `lengths` is the argument forward was called with (T2Vec's
    `lengths = lengths.data.view(-1).tolist()` rebinds the name, hiding the tensor from the oracle)."""
    root = _chain_root(node)
    return root is not None and ctx.fn.is_entry and parameter_reaches(root, ctx)


def _packing_lengths_only(node: ast.Call, ctx: FunctionContext) -> bool:
    """`lengths = t.tolist()` read only as `pack_padded_sequence`'s lengths (or tested against None):
    it turns a list into `torch.as_tensor(lengths, dtype=torch.int64, device="cpu")`, and a tensor
    into `lengths.to(torch.int64)`, which must already be on the CPU."""
    name = assigned_name(node, ctx)
    reads = [node] if name is None else _reads_of_list(name, node, ctx)
    return bool(reads) and all(is_none_test(read, ctx) or _packing_lengths(read, ctx) for read in reads) and any(
        _packing_lengths(read, ctx) for read in reads)


def _packing_fix(node: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`t.tolist()` -> `(t.cpu() if torch.jit.is_tracing() else t.tolist())`: the list in eager and
    under torch.export (which follows it as unbacked ints), the tensor while the legacy exporter
    traces, where the list would be recorded as constants. Safe: eager runs the same call. Only
    where reading the receiver twice costs nothing (a name and TENSOR_CHAIN steps of it)."""
    receiver = node.func.value
    if ctx.compiled_by_torchscript or _chain_root(receiver) is None:
        return None
    torch_name, imports = ctx.torch_name()
    text = ctx.segment(receiver)
    replacement = f"({operand(text, receiver, ATOM)}.cpu() if {torch_name}.jit.is_tracing() else {ctx.segment(node)})"
    return Fix("Pass the lengths as a tensor while the legacy exporter traces", (ctx.replace(node, replacement),),
               safe=True, imports=imports)


def _reads_of_list(name: str, node: ast.Call, ctx: FunctionContext) -> list[ast.Name] | None:
    """The reads of the list `name = ....tolist()` binds, its only binding: not those of the
    parameter it rebinds (`lengths = lengths.view(-1).tolist()` reads the argument first)."""
    uses = [n for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and n.id == name]
    if sum(isinstance(n.ctx, ast.Store) for n in uses) != 1 or any(isinstance(n.ctx, ast.Del) for n in uses):
        return None
    inside = {id(n) for n in walk(node)}
    return [n for n in uses if isinstance(n.ctx, ast.Load) and id(n) not in inside
            and not (ctx.is_parameter(name) and parameter_reaches(n, ctx))]


def _packing_lengths(node: ast.expr, ctx: FunctionContext) -> bool:
    holder = ctx.parent(node)
    if isinstance(holder, ast.keyword):
        holder = ctx.parent(holder)
    return isinstance(holder, ast.Call) and converts_argument(holder, node, ctx.qualname(holder.func))


def _index_only_fix(node: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`token_list = token_idx.tolist()` read only as an index or an item of one (DBRX's experts:
    `x[None, token_list]`, `top_weights[token_list, topk_list, None]`) -> `token_list = token_idx`:
    advanced indexing by a list of ints (or bools) and by the tensor it came from pick the same
    elements in the same layout."""
    receiver = node.func.value
    name = assigned_name(node, ctx)
    if name is None or not isinstance(receiver, ast.Name) or not _one_dim(receiver.id, ctx):
        return None  # a 2-D tensor's nested list indexes as a tuple of indices, the tensor does not
    reads = reads_of_single_binding(name, ctx)
    if not reads or not all(_read_as_index(read, ctx) for read in reads):
        return None
    return Fix("Index with the tensor itself", (ctx.replace(node, receiver.id),), safe=False)


ONE_DIM_METHODS = frozenset({"flatten", "ravel"})


def _one_dim(name: str, ctx: FunctionContext) -> bool:
    """``name`` is bound once, to a 1-D tensor: an item of `torch.where(mask)` / `nonzero(as_tuple=True)`
    unpacked, `t.flatten()`, `t.view(-1)` / `reshape(-1)`, `t.nonzero()[:, k]`; and no in-place
    method or item store changes it (the list is read when `.tolist()` runs, the tensor later)."""
    values = ctx.assignments(name)
    if len(values) != 1 or ctx.is_parameter(name) or _changed_in_place(name, ctx):
        return False
    value = values[0]
    if isinstance(value, ast.Assign):  # `rows, cols = torch.where(mask)`
        value = value.value
        return isinstance(value, ast.Call) and (_one_argument_where(value, ctx) or _nonzero_tuple(value, ctx))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        method, args = value.func.attr, value.args
        if method in ONE_DIM_METHODS and not args and not value.keywords:
            return True
        return method in ("view", "reshape") and len(args) == 1 and int_constant(args[0]) == -1
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Tuple) and len(value.slice.elts) == 2:
        rows, column = value.slice.elts  # `t.nonzero()[:, 1]`
        inner = value.value
        return (isinstance(rows, ast.Slice) and rows.lower is rows.upper is rows.step is None
                and int_constant(column) is not None and isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute) and inner.func.attr == "nonzero" and not inner.keywords)
    return False


def _one_argument_where(call: ast.Call, ctx: FunctionContext) -> bool:
    return ctx.qualname(call.func) == "torch.where" and len(call.args) == 1 and not call.keywords


def _nonzero_tuple(call: ast.Call, ctx: FunctionContext) -> bool:
    as_tuple = next((k.value for k in call.keywords if k.arg == "as_tuple"), None)
    return ((ctx.qualname(call.func) == "torch.nonzero" or isinstance(call.func, ast.Attribute)
             and call.func.attr == "nonzero") and isinstance(as_tuple, ast.Constant) and as_tuple.value is True)


def _changed_in_place(name: str, ctx: FunctionContext) -> bool:
    for node in walk(ctx.fn.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == name and node.func.attr.endswith("_") and not node.func.attr.startswith("_"):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return True
    return False


def _read_as_index(read: ast.Name, ctx: FunctionContext) -> bool:
    holder = ctx.parent(read)
    if isinstance(holder, ast.Tuple):
        holder = ctx.parent(holder) if isinstance(ctx.parent(holder), ast.Subscript) else None
        return holder is not None and isinstance(holder.ctx, ast.Load) and holder.slice is ctx.parent(read)
    return isinstance(holder, ast.Subscript) and holder.slice is read and isinstance(holder.ctx, ast.Load)


TENSOR_LIST = Helper("_onnx_tensor_list", helper_source("tensor_list"))
SPLITS = frozenset({"split", "split_with_sizes"})


def _tensor_list_fix(node: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`t.tolist()` -> `_onnx_tensor_list(t)`: `.tolist()` itself but while the legacy exporter traces,
    where the same nesting of lists holds 0-d tensors (graph values). Safe: eager and torch.export run
    `.tolist()`. Offered where the list is a split's sizes (directly or through a name read only
    there: Qwen-VL's `torch.split(t, lengths.tolist(), dim=2)`), and under `onnxfix export` where the
    legacy trace warned that it recorded the list as constants: the loop keeps it only if no
    exporter's verdict gets worse (a list used as dict keys would not take tensors)."""
    if ctx.compiled_by_torchscript:
        return None
    warned = ctx.file.evidence is not None and node.lineno in ctx.file.evidence.tensor_list
    if not warned and not _split_sizes_only(node, ctx):
        return None
    text = f"_onnx_tensor_list({ctx.segment(node.func.value)})"
    return Fix("Keep the numbers graph values while the legacy exporter traces", (ctx.replace(node, text),),
               safe=True, imports=("torch",), helpers=(TENSOR_LIST,))


def _split_sizes_only(node: ast.Call, ctx: FunctionContext) -> bool:
    name = assigned_name(node, ctx)
    if name is None:
        return _is_split_sizes(node, ctx)
    reads = reads_of_single_binding(name, ctx)
    return bool(reads) and all(_is_split_sizes(n, ctx) for n in reads)


def _is_split_sizes(node: ast.expr, ctx: FunctionContext) -> bool:
    """``node`` is the sizes argument of `x.split(node, ...)`, `torch.split(x, node, ...)` (also by keyword)."""
    holder = ctx.parent(node)
    keyword = holder if isinstance(holder, ast.keyword) else None
    if keyword is not None:
        holder = ctx.parent(keyword)
    if not isinstance(holder, ast.Call):
        return False
    # a `.split(<a list>)` is a tensor's (a str's takes a separator)
    function = ctx.qualname(holder.func) in ("torch.split", "torch.split_with_sizes")
    method = not function and isinstance(holder.func, ast.Attribute) and holder.func.attr in SPLITS
    if keyword is not None:
        return (method or function) and keyword.arg in ("split_size", "split_size_or_sections", "split_sizes")
    position = 0 if method else 1
    return (method or function) and len(holder.args) > position and holder.args[position] is node
