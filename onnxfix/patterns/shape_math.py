"""ONX4xx: Python arithmetic on values taken from tensor shapes."""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import LEGACY, Fix, Rule, RuleDoc

OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|",
    ast.BitXor: "^", ast.MatMult: "@",
}
ATOMIC = (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript)


class InplaceShapeMath(Rule):
    code = "ONX401"
    triggers = tuple(f"{op}=" for op in "+ - * / % @ & | ^ << >>".split())  # `**=`, `//=` too
    name = "inplace-shape-math"
    summary = "in-place arithmetic on a value taken from a tensor's shape"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = RuleDoc(
        what="""
            Finds augmented assignments (`+=`, `-=`, `*=`, `//=`, ...) to a name whose value
            came from `tensor.shape` or `tensor.size()`, directly, by unpacking
            (`b, s = x.shape[:2]`), through arithmetic, or through an alias (`r = s`).
        """,
        why="""
            Under the legacy TorchScript exporter (`dynamo=False`), sizes are traced as tensors
            and `r += 2` is recorded as an in-place add on the traced size itself, which also
            changes every other use of that size. The exported model is wrong even on the export
            inputs (measured on torch 2.13: the docs' example returns 12 instead of 10), and the
            only signal is a line on stderr ("In-place op on output of tensor.shape"). The
            dynamo exporter treats sizes as immutable SymInts and is not affected.
        """,
        example="""
            def forward(self, states):
                b, s = states.shape[:2]
                r = s
                r += 2
                return states * (r + s)
        """,
        use_instead="""
            def forward(self, states):
                b, s = states.shape[:2]
                r = s
                r = r + 2
                return states * (r + s)
        """,
        fix_safety="""
            Safe. Sizes are Python ints in eager mode, which are immutable, so `r = r + 2`
            computes exactly what `r += 2` did.
        """,
        references=(
            "https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-inplace-operations-when-using-tensor-shape-in-tracing-mode",
        ),
    )

    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        target = node.target
        if not isinstance(target, ast.Name) or type(node.op) not in OPERATORS:
            return
        if not ctx.sizes.is_size(target):
            return
        value = ctx.segment(node.value)
        if not isinstance(node.value, ATOMIC):
            value = f"({value})"
        operator = OPERATORS[type(node.op)]
        fix = Fix(
            title=f"Rewrite as `{target.id} = {target.id} {operator} ...`",
            edits=(ctx.replace(node, f"{target.id} = {target.id} {operator} {value}"),),
            safe=True,
        )
        yield ctx.report(
            self,
            node,
            f"in-place `{operator}=` on `{target.id}`, a value taken from a tensor shape: the legacy "
            f"exporter mutates the traced size and exports a wrong model",
            fix=fix,
        )


RULES = [InplaceShapeMath]
