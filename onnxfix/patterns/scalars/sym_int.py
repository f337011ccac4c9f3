"""ONX203's `int()` of float math on sizes (`int(n ** 0.5)`, julius's `int(new_sr * length /
old_sr)`) -> `torch.sym_int(...)`, or `_onnx_sym_int(...)` where the project targets the legacy
exporter too."""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper

SYM_INT = Helper("_onnx_sym_int", helper_source("sym_int"))


def sym_int_fix(node: ast.Call, ctx: FunctionContext, legacy: bool = True) -> Fix | None:
    """`int(x)` -> `torch.sym_int(x)`: `int()` for every Python number and tensor, a SymInt kept
    symbolic under torch.export. Only the callee is replaced (comments inside the call stay).
    Its `for_legacy` form calls `_onnx_sym_int`, which is `torch.sym_int` but while the legacy
    exporter traces (the float a 0-d tensor, cast to int64: the same truncation, a graph value
    where `int()` records a constant). None where TorchScript compiles the function: it has no
    `torch.sym_int` and no tracing state. Without ``legacy`` (a value only some caller passes as a
    size, maybe a tensor or a number while tracing) no `for_legacy` form."""
    if ctx.compiled_by_torchscript:
        return None
    torch_name, imports = ctx.torch_name()
    if not legacy or branch_frozen_on_same_sizes(node.args[0], ctx):
        return Fix("Use `torch.sym_int`", (ctx.replace(node.func, f"{torch_name}.sym_int"),), safe=True, imports=imports)
    for_legacy = Fix("Use `_onnx_sym_int` (`torch.sym_int`, a graph value while the legacy exporter traces)",
                     (ctx.replace(node.func, "_onnx_sym_int"),), safe=True, imports=("torch",), helpers=(SYM_INT,))
    return Fix("Use `torch.sym_int`", (ctx.replace(node.func, f"{torch_name}.sym_int"),), safe=True, imports=imports,
               for_legacy=for_legacy)


def takes_math_sqrt(argument: ast.expr, ctx: FunctionContext) -> bool:
    """`math.sqrt` in the expression or in a binding of a name it reads: torch.onnx cannot convert
    it on a symbolic size, with or without `torch.sym_int`."""
    values = [argument, *(v for n in ast.walk(argument) if isinstance(n, ast.Name)
                          for v in ctx.assignments(n.id) if isinstance(v, ast.expr))]
    return any(isinstance(n, ast.Call) and ctx.qualname(n.func) == "math.sqrt" for v in values for n in ast.walk(v))


def branch_frozen_on_same_sizes(argument: ast.expr, ctx: FunctionContext) -> bool:
    """A Python `if`/`while`/conditional in the function whose test reads size math on a name the
    argument reads (through one binding: `m = tsz / multiple` then `math.ceil(m)` reads `tsz`),
    run by the legacy exporter: its trace keeps the export-time side of that branch, and a value
    the helper keeps live beside it can disagree with that side (fairseq's pad_to_multiple:
    `if tsz % multiple == 0: return x, 0` frozen on the padding side while the live pad amount
    drops to 0 left an exported model that had been right, by its constant padding and mask,
    failing in onnxruntime). The legacy forms are withheld there."""
    names = _names_read(argument, ctx)
    for node in ast.walk(ctx.fn.node):
        if not isinstance(node, (ast.If, ast.IfExp, ast.While)) or LEGACY in ctx.exporters_skipping(node):
            continue
        if any(ctx.sizes.is_size(part) and _plain_names(part) & names for part in ast.walk(node.test)):
            return True
    return False


def _names_read(argument: ast.expr, ctx: FunctionContext) -> set[str]:
    names = _plain_names(argument)
    for name in list(names):
        for value in ctx.assignments(name):
            if isinstance(value, ast.expr):
                names |= _plain_names(value)
    return names


def _plain_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
