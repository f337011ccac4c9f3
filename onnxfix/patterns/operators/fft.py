"""ONX522: torch.fft transforms (decompositions/registry_fft.py). Their helpers return the spectrum
as real pairs (torch.view_as_real's layout), so the fix rewrites the call together with the uses
of its complex result, and is offered only where every use has a real-layout form. Every helper
(and the consumers' `_onnx_complex_abs`, `_onnx_complex`, `_onnx_polar`) runs the torch op itself
outside export and its real DFT only while exporting (`torch.onnx.is_in_onnx_export()`), so eager
outputs are bit-identical: the fix is safe."""

from __future__ import annotations

import ast
import dataclasses
import re

from onnxfix import operator_catalog as catalog
from onnxfix.patterns.operators.base import DecompositionRule, argument, helper_accepts, helper_fix, match_call, rule_doc
from onnxfix.patterns.operators.complex_values import carries_complex_pair
from onnxfix.rewriter.context import FunctionContext
from onnxfix.decompositions import helper_chain, helper_source
from onnxfix.rewriter.rule import Edit, Helper
from onnxfix.rewriter.statements import block_of, single_name_assignment
from onnxfix.rewriter.tree_walk import walk

INVERSE = ("irfft", "irfftn")  # take a spectrum, return a real tensor
MAGNITUDE = "_onnx_complex_abs"  # |z| of the real layout
ANGLE = "_onnx_complex_angle"  # arg z of the real layout
PART = {"real": "[..., 0]", "imag": "[..., 1]"}  # views of view_as_real: exact in eager
CONSUMER_HELPERS = ("complex_abs", "complex_angle", "complex", "polar")  # written into the file when an edit calls them


class FourierTransform(DecompositionRule):
    code = "ONX522"
    name = "fft-transform"
    summary = "`torch.fft` transforms fail to export (complex results): rewrite to a real DFT"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.fft.fft` / `fft2` / `fftn` / `rfft` / `rfftn` whose complex result is used "
        "only through `.abs()` / `torch.abs`, `.angle()` / `torch.angle`, `.real`, `.imag` or `torch.view_as_real` (directly, "
        "or through a name assigned once in forward's body and read before it is rebound), and "
        "`torch.fft.irfft` / `irfftn` of `torch.complex(re, im)`, `torch.view_as_complex(t)` or "
        "`torch.polar(r, theta)`. Other uses of a spectrum (complex arithmetic, a complex tensor "
        "returned) are reported without a fix.",
        "The legacy exporter has no symbolic for `aten::fft_*` (\"Exporting the operator "
        "'aten::fft_rfftn' to ONNX opset version 17 is not supported\"), and neither exporter "
        "carries complex tensors through ordinary ops. The dynamo exporter translates these "
        "transforms when their result is taken apart at once, which the fix keeps working.",
        "def forward(self, x):\n    return torch.fft.rfftn(x, dim=(-2, -1)).abs()",
        "def forward(self, x):\n    return _onnx_complex_abs(_onnx_rfftn(x, dim=(-2, -1)))",
        "Safe: outside export the helpers call the torch op itself and return "
        "`torch.view_as_real` of its result (a view; `.real` / `.imag` become `[..., 0]` / "
        "`[..., 1]` of it, `.abs()` the complex abs of `torch.view_as_complex` of it), so eager "
        "outputs are bit-identical for every dtype and device. Only while exporting "
        "(`torch.onnx.is_in_onnx_export()`, set by both exporters) do they compute an O(n^2) DFT "
        "in the input's dtype, which agrees with the FFT to float rounding (measured bound in the "
        "records); the exported magnitude is sqrt(re^2 + im^2) rather than hypot (it overflows "
        "in float32 beyond 1.8e19). The exported transform sizes may be dynamic; memory is "
        "O(n^2) per transformed dimension; `s` entries of -1 do not export.",
        code,
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        found = match_call(node, ctx)
        if found is None or found[1].key not in self.keys:
            return
        name, decomposition, method = found
        failed = catalog.failures(decomposition.catalog_cases)
        if not failed:
            return
        if decomposition.key in INVERSE:
            edits, use = _spectrum_input(node, ctx)
            if edits is None and node.args and carries_complex_pair(node.args[0], ctx, scalar_only=True):
                return  # ONX526's pair takes the inverse transform (complex_pair.py)
        else:
            edits, use = _spectrum_uses(node, ctx)
        fix = None
        if edits is not None and helper_accepts(decomposition, node, method):
            fix = helper_fix(decomposition, node, ctx, method, safe=True)
            texts = [edit.text for edit in edits]
            extra = tuple(Helper(f"_onnx_{k}", helper_source(k)) for key in CONSUMER_HELPERS
                          if any(re.search(rf"\b_onnx_{key}\b", text) for text in texts) for k in helper_chain(key))
            fix = dataclasses.replace(fix, edits=fix.edits + tuple(edits), helpers=fix.helpers + extra)
        message = (
            f"`{name}` breaks ONNX export ({catalog.describe(failed)}; measured on torch "
            f"{catalog.torch_version()}); `{decomposition.helper}` computes it with real matmuls"
            + ("" if fix else f"; no automatic fix: {use}")
        )
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))


def _wrapper(outer: ast.Call, inner: ast.AST, ctx: FunctionContext) -> list[Edit]:
    """`f(inner)` -> `inner`."""
    source = ctx.file.source
    outer_start, outer_end = source.span(outer)
    inner_start, inner_end = source.span(inner)
    return [Edit(outer_start, inner_start, ""), Edit(inner_end, outer_end, "")]


def _use(expr: ast.AST, ctx: FunctionContext) -> list[Edit] | None:
    """The edits that make one use of the complex value ``expr`` read its real layout."""
    parent = ctx.parent(expr)
    if isinstance(parent, ast.Attribute) and parent.value is expr and isinstance(parent.ctx, ast.Load):
        if parent.attr in PART:
            start, end = ctx.dot_span(parent)
            return [Edit(start, end, PART[parent.attr])]
        call = ctx.parent(parent)
        helper = {"abs": MAGNITUDE, "angle": ANGLE}.get(parent.attr)
        if helper and isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords:
            start, end = ctx.dot_span(parent, call)  # `expr.abs()` -> `_onnx_complex_abs(expr)`
            expr_start = ctx.file.source.span(expr)[0]
            return [Edit(expr_start, expr_start, f"{helper}("), Edit(start, end, ")")]
        return None
    if isinstance(parent, ast.Call) and parent.args == [expr] and not parent.keywords:
        qualname = ctx.qualname(parent.func)
        if qualname in ("torch.abs", "torch.angle"):
            return [ctx.replace(parent.func, MAGNITUDE if qualname == "torch.abs" else ANGLE)]
        if qualname == "torch.view_as_real":
            return _wrapper(parent, expr, ctx)
    return None


def _spectrum_uses(node: ast.Call, ctx: FunctionContext) -> tuple[list[Edit] | None, str]:
    """Edits for every use of a forward transform's result, None (and why) if one has no
    real-layout form."""
    direct = _use(node, ctx)
    if direct is not None:
        return direct, ""
    other = "the complex result is used otherwise than through .abs(), .angle(), .real, .imag or view_as_real"
    statement = ctx.parent(node)
    name = single_name_assignment(statement) if isinstance(statement, ast.Assign) and statement.value is node else None
    if name is None or ctx.parent(statement) is not ctx.fn.node:
        return None, other
    block = block_of(statement, ctx)
    edits: list[Edit] = []
    loads = 0
    for later in block[block.index(statement) + 1 :]:
        names = [n for n in walk(later) if isinstance(n, ast.Name) and n.id == name]
        for load in (n for n in names if isinstance(n.ctx, ast.Load)):
            use = _use(load, ctx)
            if use is None:
                return None, other
            edits.extend(use)
            loads += 1
        if any(not isinstance(n.ctx, ast.Load) for n in names):
            if single_name_assignment(later) != name:
                return None, f"`{name}` is rebound in a compound statement"
            break  # rebound: later reads see the new value
    return (edits, "") if loads else (None, other)


def _spectrum_input(node: ast.Call, ctx: FunctionContext) -> tuple[list[Edit] | None, str]:
    """An inverse transform's complex input built from real tensors, rewritten to their stack."""
    spectrum = argument(node, "input", 0)
    why = "the spectrum is not built by torch.complex, torch.view_as_complex or torch.polar in the call"
    if not isinstance(spectrum, ast.Call) or spectrum.keywords or any(isinstance(a, ast.Starred) for a in spectrum.args):
        return None, why
    qualname = ctx.qualname(spectrum.func)
    args = [ctx.segment(a) for a in spectrum.args]
    if qualname == "torch.view_as_complex" and len(args) == 1:
        return [ctx.replace(spectrum, args[0])], ""
    if qualname == "torch.complex" and len(args) == 2:
        return [ctx.replace(spectrum.func, "_onnx_complex")], ""
    if qualname == "torch.polar" and len(args) == 2:
        return [ctx.replace(spectrum.func, "_onnx_polar")], ""
    return None, why


RULES = [FourierTransform]
