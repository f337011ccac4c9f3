"""ONX203's `int(math.sqrt(n))` of a size (the side of a square token grid: Swin, ViT position
tables, SAM's windows) -> `_onnx_size_isqrt(math.sqrt, n)`."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper

SQUARE_ROOTS = frozenset({"math.sqrt", "numpy.sqrt"})
SIZE_ISQRT = Helper("_onnx_size_isqrt", helper_source("size_isqrt"))


def size_square_root(argument: ast.expr, ctx: FunctionContext) -> ast.Call | None:
    """`math.sqrt(n)` / `numpy.sqrt(n)` of one integer size (`x.shape[1]`, `h * w`, a name bound to
    one; not `L / 2`, a float no SymInt branch takes)."""
    if not (isinstance(argument, ast.Call) and ctx.qualname(argument.func) in SQUARE_ROOTS):
        return None
    if len(argument.args) != 1 or argument.keywords or isinstance(argument.args[0], ast.Starred):
        return None
    operand = argument.args[0]
    return argument if ctx.sizes.is_size(operand) and ctx.ints.is_int(operand) else None


def isqrt_fix(node: ast.Call, root: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`int(math.sqrt(n))` -> `_onnx_size_isqrt(math.sqrt, n)`: safe. In eager the helper calls
    `int(<the same sqrt>(n))` on the same value, whatever it is; it computes otherwise only on a
    SymInt (torch.export) or a size tensor while the legacy exporter traces. None where TorchScript
    compiles the function (no SymInt there)."""
    if ctx.compiled_by_torchscript:
        return None
    text = f"_onnx_size_isqrt({ctx.segment(root.func)}, {ctx.segment(root.args[0])})"
    return Fix("Take the integer square root symbolically", (ctx.replace(node, text),), safe=True,
               imports=("torch",), helpers=(SIZE_ISQRT,))
