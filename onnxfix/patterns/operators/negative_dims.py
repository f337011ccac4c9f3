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
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.integers import int_constant
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc

# op -> (positions of its dim arguments in the function form, their keywords); the method form
# has the same arguments less the tensor
DIM_ARGUMENTS = {  # the source only: a negative destination exports (measured)
    "movedim": ((1,), ("source",)),
    "moveaxis": ((1,), ("source",)),
}


class LegacyNegativeDim(Rule):
    code = "ONX536"
    name = "legacy-negative-dim"
    summary = "`permute` / `movedim` / `moveaxis` with a negative dim: the legacy exporter writes it as it is"
    fix_availability = "sometimes"
    default_safety = "safe"
    exporters = (LEGACY,)  # torch.export normalises the dims
    triggers = ("permute", "movedim", "moveaxis")
    doc = RuleDoc(
        what="Finds `permute` given a negative int literal as a dim, and `movedim` / `moveaxis` (function "
        "and method) given one as a source dim (a negative destination exports).",
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
            if not negative:
                return
            edits = tuple(Edit(*ctx.file.source.span(d), str(len(dims) + int_constant(d))) for d in negative)
        else:
            negative = [d for d in _dim_arguments(op, arguments, node) if (int_constant(d) or 0) < 0]
            if not negative:
                return
            edits = ()
            if tensor is not None and simple_receiver(tensor):
                rank = f"{ctx.segment(tensor)}.dim()"
                edits = tuple(Edit(*ctx.file.source.span(d), f"{rank} - {-int_constant(d)}") for d in negative)
        fix = Fix("Count the dim from the front", edits, safe=True) if edits else None
        yield ctx.report(self, node, f"`{op}` with a negative dim ({', '.join(ctx.segment(d) for d in negative)}): the "
                         "legacy exporter writes it into the graph as it is (onnxruntime refuses the model); count it "
                         "from the front", fix=fix)


def _call_parts(node: ast.Call, ctx: FunctionContext):
    """(op, the tensor, the arguments after it) of `torch.op(x, ...)` or `x.op(...)`."""
    qualname = ctx.qualname(node.func) or ""
    for op in ("permute", *DIM_ARGUMENTS):
        if qualname == f"torch.{op}" and node.args:
            return op, node.args[0], node.args[1:]
        if isinstance(node.func, ast.Attribute) and node.func.attr == op and not qualname:
            return op, node.func.value, node.args  # a method: not a module's function (`np.moveaxis`)
    return None, None, []


def _permute_dims(arguments: list[ast.expr], node: ast.Call) -> list[ast.expr]:
    """The dims: `permute(1, -1, 0)`, `permute((1, -1, 0))`, `dims=[...]`."""
    given = arguments or [k.value for k in node.keywords if k.arg == "dims"]
    if len(given) == 1 and isinstance(given[0], (ast.Tuple, ast.List)):
        given = given[0].elts
    return [] if any(isinstance(d, ast.Starred) for d in given) else list(given)


def _dim_arguments(op: str, arguments: list[ast.expr], node: ast.Call) -> list[ast.expr]:
    positions, keywords = DIM_ARGUMENTS[op]
    found = [arguments[p - 1] for p in positions if p - 1 < len(arguments)]
    found += [k.value for k in node.keywords if k.arg in keywords]
    dims = []
    for d in found:  # movedim takes a dim or a tuple of dims
        dims.extend(d.elts if isinstance(d, (ast.Tuple, ast.List)) else [d])
    return dims


RULES = [LegacyNegativeDim]
