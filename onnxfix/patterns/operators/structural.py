"""ONX515-ONX516: structural ops that fail to export, and the ops dynamo exports silently wrong
(decompositions/registry_structural.py)."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.patterns.operators.base import (
    DecompositionRule,
    argument,
    is_number,
    literal,
    match_call,
    rule_doc,
)


class StructuralOperator(DecompositionRule):
    code = "ONX515"
    name = "structural-operator"
    summary = ("`cov` / `corrcoef` / `index_reduce` / `vander` / `combinations` / `pdist` / `narrow` / `ctc_loss` / "
               "`masked_select` / `unique_consecutive` / `fft.rfftfreq` fail to export: rewrite")
    default_safety = "safe"
    extra_triggers = ("one_hot", "normal")  # reported without a fix
    doc = rule_doc(
        "Finds `torch.cov`, `torch.corrcoef` (and their methods), `Tensor.index_reduce` / `index_reduce_`, "
        "`torch.vander`, `torch.combinations`, `F.pdist` / `torch.pdist`, and `torch.narrow` / "
        "`Tensor.narrow` whose `start` is a tensor, `F.ctc_loss`, `torch.masked_select` / "
        "`torch.unique_consecutive` (and their methods) and `torch.fft.rfftfreq`. Also reports, without a fix, "
        "`F.one_hot` without `num_classes` (the size comes from the data) and `torch.normal` with "
        "a tensor mean and a number std (random: no rewrite can be checked against eager).",
        "cov and corrcoef check tensor values (`aten.equal`: DataDependentOutputException in "
        "torch.export); index_reduce and pdist have no ONNX translation; vander runs cumprod "
        "(`prims.prod`); combinations selects with masked_select (a data-dependent size, although "
        "the size depends only on n); narrow with a tensor start reads the start's value "
        "(unbacked symbol); ctc_loss has a data-dependent output shape in capture; masked_select and "
        "unique_consecutive have no dynamo translation, although boolean indexing, which computes "
        "the same data-dependent size, has one. Legacy has no symbolic for cov, corrcoef, "
        "index_reduce, vander, combinations, pdist, ctc_loss, unique_consecutive; neither exporter "
        "translates fft.rfftfreq.",
        "def forward(self, x):\n    return torch.cov(x)",
        "def forward(self, x):\n    return _onnx_cov(x)",
        "Safe: ATen's own arithmetic (bit-identical in eager for cov, corrcoef, index_reduce, vander, "
        "combinations, narrow, ctc_loss, masked_select, unique_consecutive, rfftfreq; pdist to float rounding of the column sum). Inputs torch "
        "rejects (negative weights, an out-of-range start) are not diagnosed. vander, "
        "combinations, pdist and ctc_loss (time steps, padded target length) need those sizes "
        "to be static at export time.",
        code,
    )

    def visit_Call(self, node, ctx):
        found = match_call(node, ctx)
        if found is None:
            yield from self._report_only(node, ctx)
            return
        if found[1].key == "narrow":
            start = argument(node, "start", 2, found[2])
            if start is None or ctx.tensors.is_tensor(start) is not True:
                return  # an int start exports; only a tensor start is the failing variant
        yield from super().visit_Call(node, ctx)

    def _report_only(self, node, ctx):
        """Failing variants with no faithful decomposition: reported, never rewritten."""
        qualname = ctx.qualname(node.func)
        if qualname == "torch.nn.functional.one_hot":
            classes = argument(node, "num_classes", 1, False)
            if classes is not None and literal(classes) != -1:
                return  # an explicit class count exports
            case, reason = "one_hot num_classes=-1", (
                "the class count (max(x) + 1) is read from the data; pass `num_classes` explicitly")
        elif qualname == "torch.normal":
            mean, std = argument(node, "mean", 0, False), argument(node, "std", 1, False)
            size = argument(node, "size", 2, False)
            if mean is None or ctx.tensors.is_tensor(mean) is False or not is_number(literal(std)) or size is not None:
                return  # without `size`, a number std means a tensor mean (the failing variant)
            case, reason = "normal tensor mean", (
                "a random op: no rewrite can be checked against eager; `mean + std * torch.randn_like(mean)` "
                "samples the same distribution if that is acceptable")
        else:
            return
        failed = catalog.failures((case,))
        if failed:
            message = (
                f"`{qualname}` breaks ONNX export ({catalog.describe(failed)}; measured on torch "
                f"{catalog.torch_version()}) and has no faithful decomposition: {reason}"
            )
            yield ctx.report(self, node, message, exporters=tuple(sorted(failed)))


class DynamoSilentlyWrong(DecompositionRule):
    code = "ONX516"
    name = "dynamo-silently-wrong"
    summary = "`scatter_reduce(reduce=\"mean\")` and `cross_entropy(label_smoothing=)` export silently wrong in dynamo: rewrite"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.scatter_reduce` / `Tensor.scatter_reduce` / `Tensor.scatter_reduce_` with "
        "`reduce=\"mean\"` and "
        "`F.cross_entropy` with a `label_smoothing=` other than 0. (`nn.CrossEntropyLoss("
        "label_smoothing=...)` modules are decomposed by `onnxfix export --decompose`.)",
        "The dynamo exporter exports both WITHOUT an error but computes something else: "
        "scatter_reduce \"mean\" becomes a plain scatter (the last value wins; ONNX "
        "ScatterElements has no mean), and cross_entropy drops label_smoothing (measured: the "
        "loss differs by 0.01-0.13; with probability targets onnxruntime rejects the graph). The "
        "legacy exporter refuses both.",
        "def forward(self, x, index, v):\n    return x.scatter_reduce(1, index, v, \"mean\")",
        "def forward(self, x, index, v):\n    return _onnx_scatter_reduce(x, 1, index, v, \"mean\")",
        "Safe: ATen's formulas. scatter_reduce mean is bit-identical in eager (floor division for "
        "integers, include_self both ways); cross_entropy is bit-identical except weight= with "
        "reduction=\"mean\", where the weight total may differ by 1 ulp (summation order).",
        code,
    )

    def visit_Call(self, node, ctx):
        found = match_call(node, ctx)
        if found is None or found[1].key not in self.keys:
            return
        if found[1].key in ("scatter_reduce", "scatter_reduce_"):
            reduce = argument(node, "reduce", 4, found[2])
            if not (isinstance(reduce, ast.Constant) and reduce.value == "mean"):
                return  # other reductions export correctly in dynamo
        else:
            smoothing = argument(node, "label_smoothing", 7, False)
            if isinstance(smoothing, ast.Constant) and smoothing.value in (0, 0.0):
                return
        yield from super().visit_Call(node, ctx)


RULES = [StructuralOperator, DynamoSilentlyWrong]
