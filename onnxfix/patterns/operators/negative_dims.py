"""ONX536: a negative dim the legacy exporter writes into the graph as it is.

Stylish-TTS's duration encoder permutes with `x.permute(1, -1, 0)`: eager counts -1 from the end,
but the legacy exporter's permute writes `perm=[1, -1, 0]` into a Transpose, which onnxruntime
refuses ("Invalid attribute perm"); movedim / moveaxis with a negative source go through the same
Transpose. Measured on torch 2.13, one probe per op with dim -1 and with its non-negative equal:
only the negative one fails, and for movedim only as the source (index_add, which fails the same
way, is ONX518's decomposition). The dim counted from the front is the same op on the same axis.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.indexing.rules import simple_receiver
from onnxfix.patterns.operators.base import ATEN, an_object
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.signatures import bound_argument

# the dim parameter a negative literal breaks, by op (its name in torch's schema: the arguments
# are bound by rewriter/signatures.py); a negative destination exports (measured)
SOURCE_DIMS = {"movedim": "source", "moveaxis": "source"}
OPS = ("permute", *SOURCE_DIMS)


class LegacyNegativeDim(Rule):
    code = "ONX536"
    name = "legacy-negative-dim"
    summary = "`permute` / `movedim` / `moveaxis` with a negative dim: the legacy exporter writes it as it is"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)  # torch.export normalises the dims
    triggers = ("permute", "movedim", "moveaxis")
    doc = RuleDoc(
        what="Finds `permute` given a negative int literal as a dim, and `movedim` / `moveaxis` given one "
        "as a source dim (a negative destination exports), in every spelling: `torch.<op>`, the Tensor "
        "method, `torch.ops.aten.<op>` (the arguments bound by torch's own schema).",
        why="The legacy exporter's symbolics pass these dims to ONNX as they are: permute and "
        "movedim write a Transpose with a negative `perm`, which onnxruntime refuses (\"Invalid "
        "attribute perm {1, -1, 0}\"; Stylish-TTS). Measured on torch 2.13 with each op given -1 and its "
        "non-negative equal: only the negative dims fail. The dynamo exporter normalises them.",
        example="def forward(self, x):\n    return x.permute(1, -1, 0)",
        use_instead="def forward(self, x):\n    return x.permute(1, 2, 0)",
        fix_safety="Safe: the same op on the same axis. `permute` lists every dim, so its rank is the "
        "number of dims and -k is that number less k; for the others -k becomes `x.dim() - k`, the "
        "tensor's rank read again (a name or an attribute only: reading it again changes nothing). "
        "A tensor written otherwise gets no fix.",
        references=("https://github.com/Stylish-TTS/stylish-tts/commit/6af3c516d130a34d4310ba93805650329773166e",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        op, tensor, arguments = _call_parts(node, ctx)
        if op is None:
            return
        if op == "permute":
            dims = _permute_dims(arguments, node)
            negative = [d for d in dims if (int_constant(d) or 0) < 0]
            edits = tuple(Edit(*ctx.file.source.span(d), str(len(dims) + int_constant(d))) for d in negative)
        else:
            source = bound_argument(ast.Call(node.func, arguments, node.keywords), f"torch.{op}", SOURCE_DIMS[op],
                                    receiver=tensor)
            items = source.elts if isinstance(source, (ast.Tuple, ast.List)) else [source] if source else []
            negative = [d for d in items if (int_constant(d) or 0) < 0]
            edits = ()
            if simple_receiver(tensor):  # its rank read again: a name or an attribute only
                edits = tuple(Edit(*ctx.file.source.span(d), f"{ctx.segment(tensor)}.dim() - {-int_constant(d)}")
                              for d in negative)
        if not negative:
            return
        fix = Fix("Count the dim from the front", edits, safe=True) if edits else None
        yield ctx.report(self, node, f"`{op}` with a negative dim ({', '.join(ctx.segment(d) for d in negative)}): the "
                         "legacy exporter writes it into the graph as it is (onnxruntime refuses the model); count it "
                         "from the front", fix=fix)


def _call_parts(node: ast.Call, ctx: FunctionContext):
    """(op, the tensor, the arguments after it) of `torch.op(x, ...)`, `torch.ops.aten.op(x, ...)` (any
    overload) or the method `x.op(...)` (not a module's function: `np.moveaxis`; not a layer's method)."""
    qualname = ctx.qualname(node.func) or ""
    name = qualname[len(ATEN):].split(".")[0] if qualname.startswith(ATEN) else qualname.removeprefix("torch.")
    if name in OPS and qualname and node.args:
        return name, node.args[0], node.args[1:]
    func = node.func
    if not qualname and isinstance(func, ast.Attribute) and func.attr in OPS and not an_object(func.value, ctx):
        return func.attr, func.value, node.args
    return None, None, []


def _permute_dims(arguments: list[ast.expr], node: ast.Call) -> list[ast.expr]:
    """The dims: `permute(1, -1, 0)`, `permute((1, -1, 0))`, `dims=[...]`."""
    given = arguments or [k.value for k in node.keywords if k.arg == "dims"]
    if len(given) == 1 and isinstance(given[0], (ast.Tuple, ast.List)):
        given = given[0].elts
    return [] if any(isinstance(d, ast.Starred) for d in given) else list(given)


RULES = [LegacyNegativeDim]
