"""ONX705: a number written through a boolean mask that may index fewer axes than the tensor has
(`hidden_states[~padding_mask] = 0.0`, the mask over (batch, frames) of (batch, frames, hidden))."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.indexing.rules import INDEX_REFERENCES, simple_receiver, subscript_target
from onnxfix.rewriter.bool_dtype import is_bool_tensor
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import is_number
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

FLOAT16_MAX = 65504.0  # masked_fill_ refuses a number a float16 tensor cannot hold; index_put writes inf


class MaskFillWrite(Rule):
    code = "ONX705"
    name = "mask-fill-write"
    summary = "a number written through a boolean mask (`x[mask] = 0.0`): `x.masked_fill_(mask, 0.0)` with the mask's axes kept"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds `x[mask] = c` where `mask` is a boolean tensor held in a name (or `~name`), `c`
            a number (a literal, or under `onnxfix export` a name the run saw hold only Python
            numbers), and `mask` is not a comparison of `x` itself (which has all of `x`'s axes):
            wav2vec2/WavLM's `hidden_states[~padding_mask] = 0.0` before mean pooling, the mask
            over (batch, frames) of (batch, frames, hidden).
        """,
        why="""
            A mask over the leading axes selects whole rows. The legacy exporter writes it as a
            Where of the mask against the tensor without the trailing axes (measured on torch
            2.13: onnxruntime fails with "Attempting to broadcast an axis by a dimension other
            than 1" on every input; transformers#34224). A mask with every axis exports. The
            dynamo exporter is correct either way.
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
            inf as the index write does).
        """,
        references=INDEX_REFERENCES,
    )

    def visit_Assign(self, node: ast.Assign, ctx: FunctionContext):
        target = subscript_target(node)
        if target is None or not simple_receiver(target.value) or not _a_number(node.value, ctx):
            return
        mask = target.slice
        name = mask.operand if isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert) else mask
        if not isinstance(name, ast.Name) or ctx.tensors.is_tensor(target.value) is not True:
            return
        if not (ctx.tensors.dtype(name) == "bool" or _bound_once_to_bool(name.id, ctx)):
            return
        tensor = operand(ctx.segment(target.value), target.value, ATOM)
        axes = f"{name.id}.view({name.id}.shape + (1,) * ({tensor}.dim() - {name.id}.dim()))"
        text = f"{tensor}.masked_fill_({'~' if name is not mask else ''}{axes}, {ctx.segment(node.value)})"
        fits = _fits_float16(node.value, ctx.tensors.dtype(target.value))
        fix = Fix("Fill through the mask with `masked_fill_`", (ctx.replace(node, text),), safe=True) if fits else None
        yield ctx.report(self, node, "a number written through a boolean mask that may index fewer axes than the tensor "
                         "has: the legacy exporter broadcasts the mask against the tensor without its trailing axes "
                         "(onnxruntime fails); `masked_fill_` with the mask's missing axes of size 1 writes the same "
                         "elements" + ("" if fits else " (no fix: `masked_fill_` refuses a number beyond float16's "
                                                     "range on a float16 tensor, where the index write stores inf)"), fix=fix)


def _bound_once_to_bool(name: str, ctx: FunctionContext) -> bool:
    """``name`` is a local of the function bound exactly once, by `name = <a bool expression of
    tensors>` (a comparison with a tensor that is not with None, `~`, `&`, `|` of such, a bool
    method), and nothing else can rebind it (no global, nonlocal, loop, `match` or nested
    function binding it): what the write reads is that value."""
    if ctx.is_parameter(name):
        return False
    bindings = [n for n in ast.walk(ctx.fn.node) if (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store))
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
    if is_number(node):
        return True
    values = ctx.observed(node) if isinstance(node, ast.Name) else None
    return bool(values) and all(v.kind in ("int", "float") for v in values)


def _fits_float16(node: ast.expr, tensor_dtype: str | None) -> bool:
    """Whether ``masked_fill_`` takes the number on the tensor: a literal float16 can hold, or
    a number in a name written into a tensor the run saw with another dtype than float16."""
    if not is_number(node):  # float16 and bfloat16 refuse a number beyond their range; float32 stores inf
        return tensor_dtype is not None and tensor_dtype not in ("float16", "bfloat16")
    value = ast.literal_eval(node)
    return abs(value) <= FLOAT16_MAX


RULES = [MaskFillWrite]
