"""ONX527: a Python number floor-divided by a tensor (decompositions/rfloordiv.py)."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.decompositions import helper_chain, helper_source
from onnxfix.patterns.operators.base import DecompositionRule, rule_doc
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper


def number_literal(node: ast.AST) -> int | float | None:
    """The value of `2`, `1.0`, `-3` (not a bool)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = number_literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _may_be_tensor(node: ast.AST, ctx: FunctionContext) -> bool:
    """Not known to be a Python number (a size, a parameter annotated `int` / `float`); a module
    attribute only when known to be a tensor (`32 // self.bits`: a configuration number)."""
    answer = ctx.tensors.is_tensor(node)
    if answer is False or ctx.sizes.is_size(node):
        return False
    if isinstance(node, ast.Attribute) and answer is not True:
        return False
    if isinstance(node, ast.Name) and ctx.is_parameter(node.id):
        arguments = ctx.fn.node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if argument.arg == node.id and isinstance(argument.annotation, ast.Name):
                return argument.annotation.id not in ("int", "float", "bool")
    return True


class NumberFloorDividedByTensor(DecompositionRule):
    code = "ONX527"
    name = "number-floor-divided-by-tensor"
    summary = "`number // tensor`: torch.export records aten.floor_divide(<number>, tensor), which does not convert"
    default_safety = "safe"
    extra_triggers = ("//",)
    doc = rule_doc(
        "Finds a Python number floor-divided by a value that may be a tensor: `1.0 // s`, `7 // n` "
        "(Tensor.__rfloordiv__, also called by that name), in code that runs under export. A size, or a "
        "parameter annotated `int` or `float`, is a number: not reported.",
        "torch.export records the operator as `aten.floor_divide(1.0, s)` with the number in the tensor "
        "argument; the dynamo exporter's ONNX translation then fails at step 3 with \"AttributeError: "
        "'float' object has no attribute 'dtype'\" (I-BERT's IntGELU computes "
        "`shift_int = 1.0 // sigmoid_scaling_factor`). `tensor // number` and the other reflected "
        "operators (`1.0 - s`, `1.0 / s`, `2.0 ** s`) convert. The legacy exporter writes the float "
        "division truncating: wrong where the quotient is negative.",
        "def forward(self, s):\n    return 1.0 // s",
        "def forward(self, s):\n    return _onnx_rfloordiv(s, 1.0)",
        "Safe: the helper returns `other // input` itself outside export "
        "(`torch.onnx.is_in_onnx_export()` is False in eager). While exporting it divides a tensor of "
        "the number, in the dtype the two promote to (`torch.result_type`), with "
        "`torch.div(..., rounding_mode=\"floor\")`, the kernel floor_divide runs: the same operand "
        "values and the same result, under both exporters.",
        "ONX527",
    )

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        if not isinstance(node.op, ast.FloorDiv):
            return
        number = number_literal(node.left)
        if number is None or not _may_be_tensor(node.right, ctx):
            return
        failed = catalog.failures(("rfloordiv float",) if isinstance(number, float) else ("rfloordiv int",))
        if not failed:
            return
        call = f"_onnx_rfloordiv({ctx.segment(node.right)}, {ctx.segment(node.left)})"
        helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain("rfloordiv"))
        fix = Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), True, imports=("torch",), helpers=helpers)
        message = (
            f"`{ctx.segment(node)[:40]}` floor-divides a number by a tensor (Tensor.__rfloordiv__), which breaks "
            f"ONNX export ({catalog.describe(failed)}; measured on torch {catalog.torch_version()}); "
            "`_onnx_rfloordiv` computes it with exportable ops"
        )
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))


RULES = [NumberFloorDividedByTensor]
