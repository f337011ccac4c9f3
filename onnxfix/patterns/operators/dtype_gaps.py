"""ONX525: operands of mixed dtypes that eager PyTorch promotes and the exported graph does not.

`torch.einsum("i,j->ij", torch.arange(n), inv_freq)` (GPT-J's and CodeGen's rotary
`fixed_pos_embedding`) multiplies an int64 range by a float tensor: eager promotes, both
exporters write one Einsum node with an int64 and a float input, and onnxruntime refuses to load
the model ("Type parameter (T) of Optype (Einsum) bound to different types").
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc


def integer_arange(node: ast.AST, ctx: FunctionContext) -> bool:
    """`torch.arange(n)`, `torch.arange(0, n, 2)`: no dtype= and no float literal, so int64."""
    if not (isinstance(node, ast.Call) and ctx.qualname(node.func) == "torch.arange"):
        return False
    if any(k.arg == "dtype" or k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return False
    return not any(isinstance(a, ast.Constant) and isinstance(a.value, float) for a in node.args)


def einsum_operands(node: ast.Call, ctx: FunctionContext) -> list[ast.AST] | None:
    if ctx.qualname(node.func) not in ("torch.einsum", "torch.functional.einsum") or len(node.args) < 2:
        return None
    if len(node.args) == 2 and isinstance(node.args[1], (ast.List, ast.Tuple)):
        return list(node.args[1].elts)  # torch.einsum(eq, [a, b])
    return list(node.args[1:])


class MixedDtypeEinsum(Rule):
    code = "ONX525"
    name = "mixed-dtype-einsum"
    summary = "`torch.einsum` on an int64 `arange` and a float tensor: onnxruntime rejects the Einsum node"
    fix_availability = "sometimes"
    default_safety = "unsafe"
    triggers = ("einsum",)
    doc = RuleDoc(
        what="Finds `torch.einsum` calls where an operand is `torch.arange(...)` without `dtype=` "
        "(an int64 tensor) and another operand is not: eager PyTorch promotes the integers, the "
        "exported Einsum node does not.",
        why="Both exporters write one Einsum with an int64 and a float input; onnxruntime refuses "
        "the model: \"Type parameter (T) of Optype (Einsum) bound to different types (tensor(int64) "
        "and tensor(float)\" (measured on torch 2.13; GPT-J and CodeGen's `fixed_pos_embedding`).",
        example="def forward(self, x):\n    inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2) / 8))\n"
        "    return torch.einsum(\"i , j -> i j\", torch.arange(x.shape[1]), inv_freq)",
        use_instead="def forward(self, x):\n    inv_freq = 1.0 / (10000 ** (torch.arange(0, 8, 2) / 8))\n"
        "    return torch.einsum(\"i , j -> i j\", torch.arange(x.shape[1]).to(inv_freq.dtype), inv_freq)",
        fix_safety="Unsafe: the range is cast to the other operand's dtype, which is what einsum's "
        "promotion gives when that operand is floating point (integers up to 2**24 are exact in "
        "float32); an integer operand of another width would change the result's dtype.",
        references=("https://github.com/salesforce/CodeGen/pull/19",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        operands = einsum_operands(node, ctx)
        if not operands:
            return
        ranges, others = [], []
        for operand in operands:
            (ranges if integer_arange(operand, ctx) else others).append(operand)
        if not ranges or not others:
            return
        target = others[0]
        fix = None
        if isinstance(target, (ast.Name, ast.Attribute)):
            dtype = f"{ctx.segment(target)}.dtype"
            edits = tuple(Edit(ctx.file.source.span(r)[1], ctx.file.source.span(r)[1], f".to({dtype})") for r in ranges)
            fix = Fix(f"Cast the range to `{dtype}`", edits, safe=False)
        message = (
            "`torch.einsum` on an int64 `torch.arange(...)` and another operand: eager promotes, the "
            "exported Einsum node mixes int64 and float and onnxruntime refuses the model; cast the range"
        )
        yield ctx.report(self, node, message, fix=fix)


RULES = [MixedDtypeEinsum]
