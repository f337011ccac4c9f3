"""ONX203 on `bool()` of a tensor: reported, and dropped where the number is only ever tested."""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.patterns.scalars.values import assigned_name, is_condition_test, replace_call_by_argument
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix
from onnxfix.rewriter.statements import reads_of_single_binding


def bool_of_tensor_report(rule, node: ast.Call, ctx: FunctionContext):
    """kornia's `is_perspective = bool(t.any())` read only as `if is_perspective:`: the test takes
    the tensor's truth exactly as `bool()` did (both call `Tensor.__bool__`), and the control-flow
    rules then see the tensor condition. Safe."""
    tested = read_only_as_test(node, ctx)
    fix = Fix("Keep the tensor: the tests take its truth", (replace_call_by_argument(node, ctx),),
              safe=True) if tested else None
    return ctx.report(
        rule, node,
        "`bool()` of a tensor: the legacy exporter records the value as a constant "
        "(or fails when the result meets a tensor)"
        + (f"; `{tested}` is read only as a test, which takes the tensor's truth the same way (the "
           "control-flow rules then see the tensor condition)" if tested else ""),
        fix=fix, exporters=(LEGACY, DYNAMO) if tested else (LEGACY,),
    )


def read_only_as_test(node: ast.Call, ctx: FunctionContext) -> str | None:
    """The name `name = bool(t)` binds, when that is its only binding and every read is the test of
    an `if` / `while` / `assert` / conditional expression (or inside its `and` / `or` / `not`)."""
    name = assigned_name(node, ctx)
    if name is None or ctx.is_parameter(name):
        return None
    reads = reads_of_single_binding(name, ctx)
    return name if reads and all(is_condition_test(read, ctx) for read in reads) else None
