"""ONX406: `torch.roll` by shifts computed from sizes (fftshift by hand)."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Helper, Rule, RuleDoc

ROLL = Helper("_onnx_roll", helper_source("roll"))


class RollBySize(Rule):
    code = "ONX406"
    name = "roll-by-size"
    summary = "`torch.roll` with a shift computed from sizes"
    triggers = ("roll",)
    fix_availability = "always"
    default_safety = "safe"
    doc = RuleDoc(
        what="""
            Finds `torch.roll(x, shifts, dims)` and `x.roll(...)` where a shift is computed from
            tensor sizes (`x.shape[-1] // 2`: an fftshift written by hand, as in deblurring and
            frequency-domain models).
        """,
        why="""
            With the sizes dynamic, both exporters need the shift as a constant. Measured on
            torch 2.13 (tests/realworld/roll_fft_dynamic.py, bench/realworld.py): the legacy
            exporter fails with "SymbolicValueError: Failed to export a node ... because it is
            not constant" and the dynamo exporter with a ConversionError in `aten_roll` (its
            shifts become an ONNX Constant).
        """,
        example="""
            def forward(self, x):
                return torch.roll(x, shifts=x.shape[-1] // 2, dims=-1)
        """,
        use_instead="""
            def forward(self, x):
                return _onnx_roll(x, shifts=x.shape[-1] // 2, dims=-1)
        """,
        fix_safety="""
            Safe: the helper written into the file gathers with the index (i - shift) mod n,
            torch.roll's definition, so it moves the same elements for every dtype and device
            (bit-identical; empty dimensions included). The method form is fixed only on a known
            tensor.
        """,
        references=("https://github.com/pytorch/pytorch/issues/128324",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        method = ctx.qualname(func) is None and isinstance(func, ast.Attribute) and func.attr == "roll"
        if not (ctx.qualname(func) == "torch.roll" or method):
            return
        if method and ctx.tensors.is_tensor(func.value) is False:
            return
        shifts = next((k.value for k in node.keywords if k.arg == "shifts"), None)
        position = 0 if method else 1
        if shifts is None and len(node.args) > position:
            shifts = node.args[position]
        if shifts is None:
            return
        elements = shifts.elts if isinstance(shifts, (ast.Tuple, ast.List)) else [shifts]
        if not any(ctx.sizes.is_size(e) for e in elements):
            return
        fix = None
        if not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords):
            fix = Fix("Rewrite to `_onnx_roll(...)` (a gather by an arange index, helper added to the file)",
                      self._edits(node, ctx, method), safe=not method or ctx.tensors.is_tensor(func.value) is True,
                      imports=("torch",), helpers=(ROLL,))
        message = ("`torch.roll` by a shift computed from sizes: under dynamic shapes the legacy exporter "
                   "needs it constant and the dynamo exporter fails in aten_roll")
        yield ctx.report(self, node, message, fix=fix)

    @staticmethod
    def _edits(node: ast.Call, ctx: FunctionContext, method: bool) -> tuple[Edit, ...]:
        if not method:
            return (ctx.replace(node.func, "_onnx_roll"),)
        source = ctx.file.source
        func = node.func
        start, func_end = source.span(node)[0], source.span(func)[1]
        paren = source.text.index("(", func_end)
        separator = ", " if node.args or node.keywords else ""
        return (Edit(start, func_end, "_onnx_roll"), Edit(paren + 1, paren + 1, ctx.segment(func.value) + separator))


RULES = [RollBySize]
