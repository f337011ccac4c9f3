"""ONX207: a tensor of a narrow integer dtype (int32, int16, int8, uint8) given as a size.

Eager takes a 0-d integer tensor wherever a size goes: `torch.zeros(batch.max().int() + 1, d)`
(chemprop's aggregation), `x.view(n, -1)`, `x[:n]`, `F.pad(x, (0, n))`. The legacy exporter
records the tensor in the graph as it is, an int32 beside the int64 sizes it reads from shapes,
and the Concat (or Slice) joining them is refused by onnxruntime: "Type parameter (T) of Optype
(Concat) bound to different types (tensor(int32) and tensor(int64))". The dynamo exporter reads
the number out (an unbacked size) and is not affected (measured on torch 2.13).

The fix casts the size to int64, `torch.zeros(n.long(), d)`: an integer tensor's `.long()` holds
the same number, so every size is the same: safe. Slice bounds are ONX707's.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.scalars.uses import size_argument
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.int_dtype import NARROW_TRIGGERS, narrow_integer_dtype
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

# Calls whose first argument is a whole size (a tuple or list of dims) beside other arguments.
FIRST_ARGUMENT_SIZE_FUNCTIONS = frozenset({"torch.full", "torch.zeros", "torch.ones", "torch.empty"})
FIRST_ARGUMENT_SIZE_METHODS = frozenset({"new_full", "new_zeros", "new_ones", "new_empty"})


class NarrowIntegerSize(Rule):
    code = "ONX207"
    name = "narrow-integer-size"
    summary = "a size given as an int32 (int16, int8, uint8) tensor: the legacy graph mixes it with int64 sizes"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)
    triggers = NARROW_TRIGGERS
    doc = RuleDoc(
        what="Finds a tensor of an integer dtype narrower than int64 (a `.int()`/`.short()`/"
        "`.byte()` cast, `.to(torch.int32)`, a factory with `dtype=torch.int32`, a max or an "
        "index of one, Python-int arithmetic on one, or what a recorded run saw) given as a size: "
        "a factory's or `view`/`reshape`/`expand`/`new_*`'s dims, `F.pad`'s amounts, `topk`'s k, "
        "`narrow`'s length (a slice bound is ONX707's).",
        why="The legacy exporter keeps the tensor in the graph with its dtype, beside the int64 "
        "sizes it reads from shapes; the Concat or Slice joining them has inputs of two types and "
        "onnxruntime refuses to load the model (\"Type parameter (T) of Optype (Concat) bound to "
        "different types (tensor(int32) and tensor(int64))\"). Measured on torch 2.13 for "
        "torch.zeros/full, new_zeros, view, reshape, F.pad and narrow; the dynamo exporter "
        "reads the number out and is not affected.",
        example="def forward(self, h, batch):\n    n = batch.max().int() + 1\n"
        "    return torch.zeros(n, h.shape[1]).index_add_(0, batch, h)",
        use_instead="def forward(self, h, batch):\n    n = batch.max().int() + 1\n"
        "    return torch.zeros(n.long(), h.shape[1]).index_add_(0, batch, h)",
        fix_safety="Safe: `.long()` of an integer tensor holds the same number, so the size is the "
        "same in eager and in both exporters' graphs. A function's parameter is never taken for a "
        "narrow tensor (a caller may pass a Python int, which has no `.long()`).",
        references=("https://github.com/pytorch/pytorch/issues/28414",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        for size in _sizes_of(node, ctx):
            yield from self._check(size, ctx)

    def _check(self, size: ast.expr, ctx: FunctionContext):
        dtype = narrow_integer_dtype(size, ctx)
        if dtype is None:
            return
        article = "a" if dtype.startswith("u") else "an"
        message = (f"{article} {dtype} tensor as a size: the legacy exporter joins it to int64 sizes and onnxruntime refuses "
                   "the model (a Concat of two integer types); `.long()` it")
        fix = Fix("Make the size an int64 tensor (`.long()`)",
                  (ctx.replace(size, operand(ctx.segment(size), size, ATOM) + ".long()"),), safe=True)
        yield ctx.report(self, size, message, fix=fix)


def _sizes_of(node: ast.Call, ctx: FunctionContext):
    """The expressions ``node`` takes as sizes: each dim of a size argument (a display's items
    one by one)."""
    qualname = ctx.qualname(node.func)
    method = node.func.attr if isinstance(node.func, ast.Attribute) and qualname is None else None
    for container in [*node.args, *(k.value for k in node.keywords)]:
        whole = (container is (node.args[0] if node.args else None)
                 and (qualname in FIRST_ARGUMENT_SIZE_FUNCTIONS or method in FIRST_ARGUMENT_SIZE_METHODS))
        if not (whole or size_argument(node, container, ctx) or _size_keyword(node, container)):
            continue
        if isinstance(container, (ast.Tuple, ast.List)):
            yield from (e for e in container.elts if not isinstance(e, ast.Starred))
        elif not isinstance(container, ast.Starred):
            yield container


def _size_keyword(node: ast.Call, value: ast.expr) -> bool:
    return any(k.arg == "size" and k.value is value for k in node.keywords)
