"""Why ONX601 offers no fix for an `if` or a conditional expression on a tensor value: the reason
said at the line the export stops on."""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.branch_shapes import reshaped_branch
from onnxfix.patterns.control_flow.conditions import Condition, converted_out_of_torch, python_container
from onnxfix.patterns.control_flow.empty_exit import branch_shape
from onnxfix.rewriter.context import FunctionContext


def no_where_reason(node: ast.If, condition: Condition, value: str, ctx: FunctionContext) -> str:
    if value != "a tensor value":
        return "a size read from the data has no tensor form to select with (`torch.cond` works in dynamo only)"
    if condition.where_text is None:
        return "the condition is not one comparison, `any()`/`all()` or `bool()` of a tensor"
    shape = branch_shape(node, ctx)
    if shape is not None and reshaped_branch(shape[2], shape[3], ctx):
        return ("one branch changes the other's shape (`torch.where` would broadcast them or fail); "
                "`torch.cond` takes branches of different shapes in dynamo only")
    if shape is not None and any(isinstance(v, ast.AST) and python_container(v) for v in shape[2:4]):
        return ("a branch's value is a Python list, tuple, dict, string, size or None, which `torch.where` does "
                "not select")
    if shape is not None and any(converted_out_of_torch(v, ctx) for v in shape[2:4]):
        return "a branch's value leaves torch (`.numpy()`, `.tolist()`, a NumPy function), which `torch.where` does not select"
    return "`torch.where` replaces only branches that are one `return` or one assignment to the same name each"


def no_select_reason(node: ast.IfExp, condition: Condition, reshaped: bool) -> str:
    """Why `a if <tensor test> else b` gets no `torch.where`: said at the line the export stops on."""
    if reshaped:
        return "; no automatic fix: one branch changes the other's shape (`torch.where` would broadcast them or fail)"
    sides = (node.body, node.orelse)
    if any(isinstance(side, ast.Constant) and side.value is None for side in sides):
        return ("; no automatic fix: one side is `None`, which no graph selects against a tensor (a callee that "
                "treats an all-false mask as None can be passed the tensor always; otherwise decide outside the model)")
    if any(python_container(side) for side in sides):
        return "; no automatic fix: a side is a Python container, which `torch.where` cannot select"
    if not condition.where_text:
        return "; no automatic fix: the test has no tensor form for `torch.where`"
    return ""
