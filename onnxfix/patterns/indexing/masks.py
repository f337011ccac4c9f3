"""ONX705: a number written through a boolean mask that may index fewer axes than the tensor has
(`hidden_states[~padding_mask] = 0.0`, the mask over (batch, frames) of (batch, frames, hidden))."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.indexing.rules import INDEX_REFERENCES, simple_receiver, subscript_target
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.module_outputs import returns_one_tensor
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

FLOAT16_MAX = 65504.0  # masked_fill_ refuses a number a float16 tensor cannot hold; index_put writes inf


class MaskFillWrite(Rule):
    code = "ONX705"
    name = "mask-fill-write"
    summary = "a number written (or a row added) through a boolean mask of fewer axes (`x[labels == -1] = 0.0`, `x[m] += w`)"
    fix_availability = "sometimes"
    default_safety = "per-finding"  # a fill: safe; an update: unsafe
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `x[mask] = c` where `mask` is a boolean tensor held in a name (or `~name`), `c`
            a number (a literal, or under `onnxfix export` a name the run saw hold only Python
            numbers), and `mask` is not a comparison of `x` itself (which has all of `x`'s axes):
            wav2vec2/WavLM's `hidden_states[~padding_mask] = 0.0` before mean pooling, the mask
            over (batch, frames) of (batch, frames, hidden). The mask may also be a comparison of
            a tensor with a number (SAM's prompt encoder before transformers#22915,
            `point_embedding[labels == -1] = 0.0`). The tensor is one the type inference knows,
            or a local bound only to a submodule's output (a module of this file whose forward
            returns no tuple, list or dict literal; a torch.nn layer but recurrent and attention
            ones; or what another method of a submodule of this file's class returns, unless it
            returns one of its own parameters: SAM 2's `self.pe_layer.forward_with_coords(points,
            size)`). Also `x[mask] += v` / `-= v` with `x` a local made by a torch call or a submodule
            (not an identity, dropout or flatten, nor a forward input or buffer) and `v` a number or
            a weight of the module (SAM's `point_embedding[labels == -1] +=
            self.not_a_point_embed.weight`): the legacy exporter writes a masked scatter, which
            exports for many shapes and fails for SAM's (measured on torch 2.13). And `x[..., mask] = c`,
            a mask of the trailing axes (sleap-nn's peak finder, `patches[..., ~kernel_mask] =
            float("-inf")`), under both exporters.
        """,
        why="""
            A mask over the leading axes selects whole rows. The legacy exporter writes it as a
            Where of the mask against the tensor without the trailing axes (measured on torch
            2.13: onnxruntime fails with "Attempting to broadcast an axis by a dimension other
            than 1" on every input; transformers#34224). A mask with every axis exports. The
            dynamo exporter is correct either way. A mask of the trailing axes after `...` fails in
            both (measured on torch 2.13): the dynamo exporter's index_put raises "Boolean index_put
            with multiple indices does not support None indices", and the legacy exporter's graph
            has an Add whose input is "marked single but has an empty string" (onnx's checker).
        """,
        example="""
            def forward(self, hidden_states: torch.Tensor, lengths: torch.Tensor):
                padding_mask = torch.arange(hidden_states.shape[1]) < lengths[:, None]
                hidden_states = hidden_states * 2
                hidden_states[~padding_mask] = 0.0
                return hidden_states.sum(dim=1)
        """,
        use_instead="""
            def forward(self, hidden_states: torch.Tensor, lengths: torch.Tensor):
                padding_mask = torch.arange(hidden_states.shape[1]) < lengths[:, None]
                hidden_states = hidden_states * 2
                hidden_states.masked_fill_(~padding_mask.view(padding_mask.shape + (1,) * (hidden_states.dim() - padding_mask.dim())), 0.0)
                return hidden_states.sum(dim=1)
        """,
        fix_safety="""
            Safe: `masked_fill_` writes the number into the same elements, in place, with the
            mask given a trailing axis of size 1 for each axis it does not index (where the mask
            covers every axis, none). They differ only where the original raises (a mask whose
            sizes are not the indexed axes' broadcasts instead). A number beyond float16's range
            (65504) gets no fix: `masked_fill_` refuses it on a float16 tensor where the index
            write stores inf; a number held in a name is fixed only where the run saw the tensor
            with a dtype other than float16 and bfloat16 (which refuse it, where float32 stores
            inf as the index write does). An update, `x.copy_(torch.where(<mask with its missing
            axes>, x + v, x))`: unsafe. The selected elements get the same op on the same operands,
            in place, only while `v` broadcasts as one row of the selection; an integer tensor
            updated by a float is computed in float and cast back where the index write refuses.
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        target = subscript_target(node)
        if target is None or not simple_receiver(target.value) or not _a_number(node.value, ctx):
            return
        axes = _mask_axes(target, ctx)
        if axes is None:
            return
        tensor = operand(ctx.segment(target.value), target.value, ATOM)
        text = f"{tensor}.masked_fill_({axes}, {ctx.segment(node.value)})"
        fits = _fits_float16(node.value, ctx.tensors.dtype(target.value))
        fix = Fix("Fill through the mask with `masked_fill_`", (ctx.replace(node, text),), safe=True) if fits else None
        if _after_ellipsis(target.slice):
            yield ctx.report(self, node, "a number written through a boolean mask of the trailing axes (`x[..., mask] = c`): "
                             "the dynamo exporter's index_put fails (\"Boolean index_put with multiple indices does not "
                             "support None indices\") and the legacy exporter writes an invalid graph (onnx's checker: an "
                             "input \"marked single but has an empty string\"); `masked_fill_`, whose mask broadcasts from "
                             "the right, writes the same elements", fix=fix, exporters=("dynamo", "legacy"))
            return
        yield ctx.report(self, node, "a number written through a boolean mask that may index fewer axes than the tensor "
                         "has: the legacy exporter broadcasts the mask against the tensor without its trailing axes "
                         "(onnxruntime fails); `masked_fill_` with the mask's missing axes of size 1 writes the same "
                         "elements" + ("" if fits else " (no fix: `masked_fill_` refuses a number beyond float16's "
                                                     "range on a float16 tensor, where the index write stores inf)"), fix=fix)


    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        """`x[mask] += v` (SAM's prompt encoder: `point_embedding[labels == -1] += self.not_a_point_embed.weight`)."""
        target = node.target
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)) or type(node.op) not in UPDATES:
            return
        if not _made_here(target.value.id, ctx) or not _row_value(node.value, ctx):
            return  # a copy_ into a graph input or buffer is `aten::copy` to the legacy exporter; `y[mask]` is no row
        axes = _mask_axes(target, ctx)
        if axes is None:
            return
        torch_name, imports = ctx.torch_name()
        tensor = target.value.id
        value = operand(ctx.segment(node.value), node.value, ATOM)
        text = f"{tensor}.copy_({torch_name}.where({axes}, {tensor} {UPDATES[type(node.op)]} {value}, {tensor}))"
        fix = Fix("Update through the mask with `torch.where`", (ctx.replace(node, text),), safe=False, imports=imports)
        yield ctx.report(self, node, "an update through a boolean mask that may index fewer axes than the tensor has: the "
                         "legacy exporter writes it as a masked scatter, which onnxruntime fails on for some shapes "
                         "(SAM's prompt encoder: a Reshape of the export-time selection); `torch.where` of the mask with "
                         "its missing axes of size 1 gives the selected elements the same sum (unsafe: only while the "
                         "value broadcasts as one row of the selection, and an integer tensor updated by a float is "
                         "computed in float and cast back where the index write refuses)", fix=fix)


UPDATES = {ast.Add: "+", ast.Sub: "-"}  # no `*=` / `/=`: `x * v` saves x for v's gradient, which copy_ overwrites


def _row_value(node: ast.expr, ctx: FunctionContext) -> bool:
    """A number, or a weight of the module read through attributes and constant indexes
    (`self.not_a_point_embed.weight`, `self.point_embed[0].weight`): a value that does not have the
    selection's length (not `y[mask]`, a name bound to one, `masked_select`, `nonzero`)."""
    if is_number(node):
        return True
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not (isinstance(node.slice, ast.Constant) and type(node.slice.value) is int):
            return False
        node = node.value
    return isinstance(node, ast.Name) and node.id == ctx.self_name


IDENTITY_MODULES = frozenset({"Identity", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "Flatten",
                              "Unflatten"})


def _made_here(name: str, ctx: FunctionContext) -> bool:
    """A local every binding of which makes a new tensor: a call of torch or of a submodule that is
    not an identity or a view of its input (not a forward input, a buffer or an alias of one, which a
    `copy_` would write into: `aten::copy` to the legacy exporter)."""
    if ctx.is_parameter(name):
        return False
    bindings = ctx.assignments(name)
    if not bindings or not all(isinstance(b, ast.Call) for b in bindings):
        return False
    for call in bindings:
        if returns_one_tensor(call, ctx) and not ctx.is_self_attr(call.func):
            continue  # a method of a submodule of this file's class that returns no input of its own
        if isinstance(call.func, ast.Attribute) and ctx.is_self_attr(call.func):
            made = ctx.self_attr_value(call.func)
            called = getattr(getattr(made, "func", None), "attr", None) or getattr(getattr(made, "func", None), "id", "")
            if not isinstance(made, ast.Call) or called in IDENTITY_MODULES:
                return False
        elif not (ctx.qualname(call.func) or "").startswith("torch."):
            return False
    return True


def _mask_axes(target: ast.Subscript, ctx: FunctionContext) -> str | None:
    """The text of the subscript's boolean mask with a trailing axis of size 1 for each axis of the
    tensor it does not index: a mask in a name (or `~name`), or a comparison of a tensor with a
    number (`labels == -1`); None for anything else, or a tensor not known to be one."""
    if not (ctx.tensors.is_tensor(target.value) is True or _module_output(target.value, ctx)):
        return None
    tensor = operand(ctx.segment(target.value), target.value, ATOM)
    mask = target.slice
    if _after_ellipsis(mask):  # `x[..., mask]`: the trailing axes, which masked_fill_'s broadcast aligns too
        return _trailing_mask(mask.elts[1], target, ctx)
    name = mask.operand if isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert) else mask
    if isinstance(name, ast.Name):
        if not (ctx.tensors.dtype(name) == "bool" or _bound_once_to_bool(name.id, ctx)):
            return None
        axes = f"{name.id}.view({name.id}.shape + (1,) * ({tensor}.dim() - {name.id}.dim()))"
        return ("~" if name is not mask else "") + axes
    compared = _compared_with_number(mask, ctx)
    if compared is None or _mentions(mask, target.value):
        return None
    shaped = operand(ctx.segment(compared), compared, ATOM)
    return f"({ctx.segment(mask)}).view({shaped}.shape + (1,) * ({tensor}.dim() - {shaped}.dim()))"


def _after_ellipsis(index: ast.expr) -> bool:
    return (isinstance(index, ast.Tuple) and len(index.elts) == 2 and isinstance(index.elts[0], ast.Constant)
            and index.elts[0].value is Ellipsis)


def _trailing_mask(mask: ast.expr, target: ast.Subscript, ctx: FunctionContext) -> str | None:
    """The text of the boolean mask of `x[..., mask]` as masked_fill_ takes it (broadcast from the
    right: the axes the index selects): a mask in a name (or `~name`) or a comparison of a tensor
    with a number, not of the tensor written."""
    name = mask.operand if isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert) else mask
    if isinstance(name, ast.Name):
        return ctx.segment(mask) if ctx.tensors.dtype(name) == "bool" or _bound_once_to_bool(name.id, ctx) else None
    if _compared_with_number(mask, ctx) is None or _mentions(mask, target.value):
        return None
    return f"({ctx.segment(mask)})"


def _module_output(node: ast.expr, ctx: FunctionContext) -> bool:
    """A local bound only to what a submodule returns (`e = self.shared_embedding(points)`), one tensor
    as far as the source shows (rewriter/module_outputs.py)."""
    if not isinstance(node, ast.Name) or ctx.is_parameter(node.id):
        return False
    bindings = ctx.assignments(node.id)
    return bool(bindings) and all(isinstance(b, ast.Call) and returns_one_tensor(b, ctx) for b in bindings)


def _compared_with_number(mask: ast.expr, ctx: FunctionContext) -> ast.expr | None:
    """The tensor side of `t == -1` / `t > 0.5` (one comparison, the other side a number): the mask
    has its shape."""
    if not (isinstance(mask, ast.Compare) and len(mask.ops) == 1
            and isinstance(mask.ops[0], (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
        return None
    for side, other in ((mask.left, mask.comparators[0]), (mask.comparators[0], mask.left)):
        if is_number(other) and simple_receiver(side) and ctx.tensors.is_tensor(side) is True:
            return side
    return None


def _mentions(node: ast.expr, receiver: ast.expr) -> bool:
    """The mask reads the tensor written (a mask of all its axes, which exports as it is)."""
    root = receiver
    while isinstance(root, ast.Attribute):
        root = root.value
    return any(isinstance(n, ast.Name) and isinstance(root, ast.Name) and n.id == root.id for n in walk(node))


def _bound_once_to_bool(name: str, ctx: FunctionContext) -> bool:
    """``name`` is a local of the function bound exactly once, by `name = <a bool expression of
    tensors>` (a comparison with a tensor that is not with None, `~`, `&`, `|` of such, a bool
    method), and nothing else can rebind it (no global, nonlocal, loop, `match` or nested
    function binding it): what the write reads is that value."""
    if ctx.is_parameter(name):
        return False
    bindings = [n for n in walk(ctx.fn.node) if (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store))
                or (isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name == name)
                or (isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names)
                or (isinstance(n, ast.alias) and (n.asname or n.name) == name)]
    if len(bindings) != 1:
        return False
    statement = ctx.parent(bindings[0])
    return (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and statement.targets[0] is bindings[0]
            and _plain_bool(statement.value, ctx))


def _plain_bool(node: ast.expr, ctx: FunctionContext) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _plain_bool(node.operand, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        return _plain_bool(node.left, ctx) and _plain_bool(node.right, ctx)
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        return (not any(isinstance(s, ast.Constant) and s.value is None for s in sides)
                and not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops)
                and any(ctx.tensors.is_tensor(s) is True for s in sides) and is_bool_tensor(node, ctx))
    return isinstance(node, ast.Call) and is_bool_tensor(node, ctx) and ctx.tensors.is_tensor(node) is True


def _a_number(node: ast.expr, ctx: FunctionContext) -> bool:
    """A numeric literal, or a name every recorded value of which was a Python int or float
    (fairseq's `index_put(tensor, indices, value)` helper, called with 0)."""
    if is_number(node) or _float_of_text(node, ctx):
        return True
    values = ctx.observed(node) if isinstance(node, ast.Name) else None
    return bool(values) and all(v.kind in ("int", "float") for v in values)


def _float_of_text(node: ast.expr, ctx: FunctionContext) -> bool:
    """`float("-inf")`, `float("inf")`, `float("nan")`: the builtin's number, which every float dtype holds."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
            and ctx.is_builtin("float") and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).strip().lower() in ("inf", "-inf", "+inf", "nan", "infinity", "-infinity"))


def _fits_float16(node: ast.expr, tensor_dtype: str | None) -> bool:
    """Whether ``masked_fill_`` takes the number on the tensor: a literal float16 can hold, or
    a number in a name written into a tensor the run saw with another dtype than float16."""
    if isinstance(node, ast.Call):  # float("-inf"): every float dtype holds it
        return True
    if not is_number(node):  # float16 and bfloat16 refuse a number beyond their range; float32 stores inf
        return tensor_dtype is not None and tensor_dtype not in ("float16", "bfloat16")
    value = ast.literal_eval(node)
    return abs(value) <= FLOAT16_MAX


RULES = [MaskFillWrite]
