"""ONX203's `int()` of float math on sizes (`int(n ** 0.5)`, julius's `int(new_sr * length /
old_sr)`) -> `torch.sym_int(...)`, or `_onnx_sym_int(...)` where the project targets the legacy
exporter too."""

from __future__ import annotations

import ast

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
    if not legacy:
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
