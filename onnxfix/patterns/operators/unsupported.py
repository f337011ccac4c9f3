"""ONX511 (operators with no faithful decomposition: reported, never rewritten) and ONX520 (an
export call whose opset is lower than an operator of the model needs)."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.patterns.operators.base import PROBE, TARGETS
from onnxfix.patterns.operators.variants import selected_variant
from onnxfix.patterns.operators.complex_values import carries_complex_pair, first_argument
from onnxfix.rewriter.context import FunctionContext, ModuleContext
from onnxfix.rewriter.exporter_inference import exporters_of_call, installed_torch_version, torch_default
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


# Ops whose failure does not depend on their arguments and that have no decomposition, grouped
# by why. Only these are reported by ONX511, and only where the catalog measures them failing
# (an op like torch.narrow fails for one argument form only, so it is not listed).
NO_DECOMPOSITION_REASONS = (
    (("torch.unique", "torch.nonzero", "torch.repeat_interleave"),
     "its output size depends on the input values, which a fixed-shape ONNX graph cannot express"),
    (("torch.linalg.eigvals", "torch.linalg.eig", "torch.fft.ifft", "torch.stft", "torch.istft"),
     "its result is a complex tensor, which the exporter cannot carry (a real rewrite would change "
     "the output type)"),
    (("torch.randperm", "torch.multinomial", "torch.nn.functional.gumbel_softmax"),
     "it draws random numbers: no rewrite can be checked against eager PyTorch"),
)
NO_DECOMPOSITION_OPS = frozenset(op for ops, _ in NO_DECOMPOSITION_REASONS for op in ops)


def _no_decomposition_reason(op: str) -> str:
    for ops, reason in NO_DECOMPOSITION_REASONS:
        if op in ops:
            return reason
    return "onnxfix has no decomposition for it yet"  # pragma: no cover - every listed op has a reason


class UnsupportedOperator(Rule):
    code = "ONX511"
    name = "unsupported-operator"
    summary = "An operator that fails to export in every measured variant, with no decomposition"
    fix_availability = "never"
    triggers = tuple(sorted({op.rsplit(".", 1)[-1] for op in NO_DECOMPOSITION_OPS}))
    doc = RuleDoc(
        what="Finds calls to torch functions whose export fails whatever their arguments and "
        "that have no faithful decomposition: ops whose output size depends on the data "
        "(`unique`, `nonzero`, `repeat_interleave`), ops with complex "
        "results (`linalg.eigvals`/`eig`, `fft.ifft`, `stft`/`istft`, `view_as_complex`, `polar`) "
        "and random draws (`randperm`, `multinomial`, `gumbel_softmax`), where the catalog "
        "measured the failure for an exporter the project targets. Every other failing operator "
        "has a decomposition and an ONX5xx rule that rewrites it.",
        why="The export fails (or, for data-dependent sizes, cannot be expressed with fixed "
        f"shapes). The verdict and error come from the measured catalog ({PROBE}).",
        example="def forward(self, a):\n    return torch.view_as_real(torch.linalg.eigvals(a))",
        use_instead="# compute it outside the exported model, or with an iterative method\n"
        "# written in exportable ops (e.g. a fixed number of power iterations)",
        fix_safety="No fix: there is no faithful decomposition.",
        references=("https://github.com/pytorch/pytorch/issues/133052",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        qualname = ctx.qualname(node.func)
        if qualname not in NO_DECOMPOSITION_OPS:
            return
        if qualname in TARGETS and selected_variant(TARGETS[qualname], node):
            return  # a decomposition rule reports the variants that have a decomposition
        failed = catalog.fails_always(qualname)
        if not failed or _inverse_transform_input(node, ctx):
            return
        if qualname == "torch.istft" and carries_complex_pair(first_argument(node), ctx):
            return  # ONX526 rewrites it: the pair takes istft (complex_pair.py)
        message = (
            f"`{qualname}` breaks ONNX export ({catalog.describe(failed)}; measured on torch "
            f"{catalog.torch_version()}) and has no decomposition: {_no_decomposition_reason(qualname)}"
        )
        yield ctx.report(self, node, message, exporters=tuple(sorted(failed)))


def _inverse_transform_input(node: ast.Call, ctx: FunctionContext) -> bool:
    """`torch.complex(re, im)` / `view_as_complex` / `polar` as the spectrum of an inverse FFT:
    ONX522 reports the transform and its fix replaces the spectrum by real pairs."""
    parent = ctx.parent(node)
    return (isinstance(parent, ast.Call) and bool(parent.args) and parent.args[0] is node
            and ctx.qualname(parent.func) in ("torch.fft.irfft", "torch.fft.irfftn"))


FOLD_MODEL = "class Unfolded(nn.Module):\n    def forward(self, x):\n        return F.fold(x, (4, 4), 2)\n\n\n"


class OpsetTooLow(Rule):
    code = "ONX520"
    name = "opset-too-low"
    summary = "`torch.onnx.export(opset_version=N)` is lower than an operator of the model needs"
    fix_availability = "always"
    default_safety = "safe"
    scope = "module"
    triggers = ("opset_version",)
    doc = RuleDoc(
        what="At a `torch.onnx.export(...)` call with a literal `opset_version`, checks the "
        "operators the model code in the same file calls against the catalog's lowest working "
        "opset for that exporter (`dynamo=False` selects legacy, otherwise dynamo). Unlike most "
        "rules it looks at script code, where export calls live, not at `forward`.",
        why="Some ONNX ops only exist from a given opset: `F.fold` needs Col2Im (opset 18) and "
        "`F.affine_grid` AffineGrid (opset 20) with the legacy exporter, which then fails with "
        "\"Exporting the operator 'aten::col2im' to ONNX opset version 17 is not supported\".",
        example=FOLD_MODEL + "torch.onnx.export(Unfolded(), (torch.randn(1, 8, 9),), \"m.onnx\", dynamo=False, opset_version=17)",
        use_instead=FOLD_MODEL + "torch.onnx.export(Unfolded(), (torch.randn(1, 8, 9),), \"m.onnx\", dynamo=False, opset_version=18)",
        fix_safety="Safe: the opset changes the exported file, never what the model computes "
        "in PyTorch. Runtimes must support the suggested opset.",
        references=("https://onnx.ai/onnx/operators/onnx__Col2Im.html",),
    )

    def check_module(self, ctx: ModuleContext):
        used = self._ops_used(ctx)
        if not used:
            return
        for node in walk(ctx.tree):
            if isinstance(node, ast.Call) and ctx.qualname(node.func) == "torch.onnx.export":
                finding = self._check_export(node, used, ctx)
                if finding is not None:
                    yield finding

    def _ops_used(self, ctx: ModuleContext) -> dict[str, ast.Call]:
        used: dict[str, ast.Call] = {}
        ops = catalog.cases_by_op()
        for fn in ctx.export_functions:
            for node in walk(fn.node):
                if isinstance(node, ast.Call):
                    qualname = fn.scope.qualname(node.func)
                    if qualname in ops:
                        used.setdefault(qualname, node)
        return used

    def _check_export(self, node: ast.Call, used: dict[str, ast.Call], ctx: ModuleContext):
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        opset = keywords.get("opset_version")
        if not (isinstance(opset, ast.Constant) and type(opset.value) is int):
            return None
        default = torch_default(installed_torch_version())
        exporters = exporters_of_call(node, default, "torch.onnx.export")  # dynamo=<variable>: both
        needs = []
        for exporter in sorted(exporters):
            for op, call in used.items():
                required = catalog.required_opset(op, exporter)
                if required and required[0] > opset.value:
                    needs.append((required[0], op, call.lineno, exporter))
        if not needs:
            return None
        lowest, op, line, exporter = max(needs)
        fix = Fix(f"Use opset_version={lowest}", (ctx.replace(opset, str(lowest)),), safe=True)
        message = (
            f"opset_version={opset.value} is too low for `{op}` (line {line}) with the {exporter} "
            f"exporter: the lowest opset that works is {lowest} (measured on torch {catalog.torch_version()})"
        )
        return ctx.report(self, opset, message, fix=fix, exporters=(exporter,))


RULES = [UnsupportedOperator, OpsetTooLow]
