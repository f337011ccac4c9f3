"""ONX2xx: tensors turned into Python values (`.item()`, ...)."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import DYNAMO, LEGACY, Fix, Rule, RuleDoc

# Methods whose positional arguments are sizes (accept 0-d integer tensors in eager).
SIZE_METHODS = frozenset(
    {"reshape", "view", "expand", "repeat", "new_zeros", "new_ones", "new_empty", "narrow", "tile", "unflatten"}
)
# torch functions whose positional arguments are sizes.
SIZE_FUNCTIONS = frozenset(
    {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.arange", "torch.eye"}
)
# Calls whose scalar arguments also accept a 0-d tensor (with tensor type promotion).
TENSOR_SCALAR_FUNCTIONS = frozenset(
    {"torch.full", "torch.clamp", "torch.clip", "torch.where", "torch.pow", "torch.add", "torch.mul", "torch.sub", "torch.div"}
)
TENSOR_SCALAR_METHODS = frozenset({"masked_fill", "clamp", "clip", "fill_", "pow", "add", "mul", "sub", "div", "lerp"})
CONDITION_PARENTS = (ast.If, ast.While, ast.IfExp, ast.Assert)


def item_use(node: ast.Call, ctx: FunctionContext) -> str:
    """How the Python number is used: 'condition', 'size', 'arithmetic' or 'other'."""
    child: ast.AST = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, CONDITION_PARENTS) and getattr(ancestor, "test", None) is child:
            return "condition"
        if isinstance(ancestor, ast.stmt):
            break
        child = ancestor
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "range":
        return "condition"  # a loop bound is control flow too
    if isinstance(parent, ast.Slice):
        return "size"
    holder = ctx.parent(parent) if isinstance(parent, (ast.Tuple, ast.List)) else parent
    container = parent if holder is not parent else node
    if isinstance(holder, ast.Call) and container in holder.args:
        func = holder.func
        if isinstance(func, ast.Attribute) and func.attr in SIZE_METHODS:
            return "size"
        if ctx.qualname(func) in SIZE_FUNCTIONS:
            return "size"
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is node else parent.left
        if ctx.tensors.is_tensor(other):
            return "arithmetic"
    if isinstance(parent, ast.keyword):
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Call) and node is not parent.func:
        func = parent.func
        if ctx.qualname(func) in TENSOR_SCALAR_FUNCTIONS or (
            isinstance(func, ast.Attribute) and func.attr in TENSOR_SCALAR_METHODS and ctx.tensors.is_tensor(func.value)
        ):
            return "arithmetic"
    return "other"


class ItemCall(Rule):
    code = "ONX201"
    name = "tensor-item"
    summary = "`.item()` turns a tensor into a Python number"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    doc = RuleDoc(
        what="""
            Finds `tensor.item()` in code that runs under export and classifies the use: as a
            size (`x.reshape(n.item(), -1)`, `torch.zeros(n.item())`, a slice bound), in tensor
            arithmetic (`x * s.item()`), in a condition (`if t.item() > 0:`), or elsewhere.
        """,
        why="""
            The legacy exporter records the Python number as a constant (TracerWarning
            "Converting a tensor to a Python number"): `reshape(n.item(), -1)` exported with
            n=2 always reshapes to 2 rows. Measured on torch 2.13 it is silently wrong on every
            other input. The dynamo exporter handles sizes and arithmetic through unbacked
            SymInts but cannot branch on the value: `if x.sum().item() > 0:` fails with
            `GuardOnDataDependentSymNode`.
        """,
        example="""
            def forward(self, x, n, s):
                return x.reshape(n.item(), -1) * s.item()
        """,
        use_instead="""
            def forward(self, x, n, s):
                return x.reshape(n, -1) * s
        """,
        fix_safety="""
            As a size, dropping `.item()` is safe: size arguments and slice bounds accept a 0-d
            integer tensor and mean the same. In arithmetic with a tensor it is unsafe: a 0-d
            tensor takes part in type promotion differently from a Python number (int32 tensor
            times a 0-d float64 tensor is float64, times a Python float is float32), and a
            one-element tensor of higher rank would broadcast. In conditions and other Python
            uses there is no fix here (see the control-flow rules).
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-numpy-and-built-in-python-types",
            "https://github.com/pytorch/pytorch/issues/42966",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "item" and not node.args and not node.keywords):
            return
        use = item_use(node, ctx)
        if ctx.tensors.is_tensor(func.value) is False:
            return
        drop = ctx.delete_suffix(func, node)
        if use == "size":
            fix = Fix("Pass the tensor itself as the size", (drop,), safe=True)
            message = "`.item()` used as a size: the legacy exporter bakes the value in as a constant; pass the tensor"
            exporters = (LEGACY,)
        elif use == "arithmetic":
            fix = Fix("Keep the value as a 0-d tensor", (drop,), safe=False)
            message = "`.item()` as a tensor operand: the legacy exporter bakes the value in as a constant; keep it a tensor"
            exporters = (LEGACY,)
        elif use == "condition":
            fix = None
            message = (
                "`.item()` in a condition: the legacy exporter freezes the branch taken at export time "
                "and the dynamo exporter fails (GuardOnDataDependentSymNode)"
            )
            exporters = (LEGACY, DYNAMO)
        else:
            fix = None
            message = "`.item()` turns a tensor into a Python number: the legacy exporter bakes it in as a constant"
            exporters = (LEGACY,)
        yield ctx.report(self, node, message, fix=fix, exporters=exporters)


RULES = [ItemCall]
