"""ONX516: the ops the dynamo exporter exports silently wrong (and two both exporters do):
scatter_reduce "mean" and include_self=False, cross_entropy's label_smoothing, hamming_window,
avg_pool's divisor_override, atan2 on the axes, and epsilons the graph optimizer deletes
(kept_constants.py)."""

from __future__ import annotations

import ast

from onnxfix.patterns.operators.base import DecompositionRule, argument, match_call, rule_doc
from onnxfix.patterns.operators.kept_constants import kept_constant_finding
from onnxfix.rewriter.context import FunctionContext


class DynamoSilentlyWrong(DecompositionRule):
    code = "ONX516"
    name = "dynamo-silently-wrong"
    summary = ("`scatter_reduce(reduce=\"mean\")`, `cross_entropy(label_smoothing=)`, `hamming_window` and epsilons "
               "like `+ 1e-9` export silently wrong in dynamo, avg_pool's `divisor_override` and `atan2` on the axes "
               "in both: rewrite")
    default_safety = "safe"
    extra_triggers = ("e-", "E-", "0.0000000", "0.9999", "1.0000")  # an epsilon's literal (kept_constants.py)
    doc = rule_doc(
        "Finds `torch.scatter_reduce` / `Tensor.scatter_reduce` / `Tensor.scatter_reduce_` with "
        "`reduce=\"mean\"` or `include_self=False` (any reduction, even one held in a variable: "
        "the legacy exporter refuses include_self=False for all of them), and "
        "`F.cross_entropy` with a `label_smoothing=` other than 0. (`nn.CrossEntropyLoss("
        "label_smoothing=...)` modules are decomposed by `onnxfix export --decompose`.) And "
        "`torch.hamming_window`, which dynamo writes as ONNX's HammingWindow (other coefficients). "
        "And `F.avg_pool2d` / `F.avg_pool3d` / `nn.AvgPool2d` / `nn.AvgPool3d` with "
        "`divisor_override`, which BOTH exporters write as an AveragePool dividing by the window "
        "size (the helper: the window sums, a mean times the kernel size, over the divisor; with "
        "ceil_mode the op is kept). And every `torch.atan2` / `Tensor.atan2` / `torch.arctan2`: both "
        "exporters give other angles where a coordinate is zero or infinite (atan2(+0, -1) is -pi, "
        "not pi: the phase of a real signal; the legacy exporter's atan2(0, 0) is NaN). And a tensor's add or "
        "subtract of a float within 1e-8 of 0, or multiply / divide by one within a relative 1e-5 of 1 "
        "(`torch.log(d + 1e-9)`, `x / (n + self.eps)`), which onnxscript's graph optimizer in the dynamo "
        "exporter deletes as a no-op (patterns/operators/kept_constants.py).",
        "The dynamo exporter exports both WITHOUT an error but computes something else: "
        "scatter_reduce \"mean\" becomes a plain scatter (the last value wins; ONNX "
        "ScatterElements has no mean), and cross_entropy drops label_smoothing (measured: the "
        "loss differs by 0.01-0.13; with probability targets onnxruntime rejects the graph). The "
        "legacy exporter refuses both.",
        "def forward(self, x, index, v):\n    return x.scatter_reduce(1, index, v, \"mean\")",
        "def forward(self, x, index, v):\n    return _onnx_scatter_reduce(x, 1, index, v, \"mean\")",
        "Safe: both helpers return the torch op itself outside export "
        "(`torch.onnx.is_in_onnx_export()`, False in eager), since their sums and divisions run "
        "through other ATen kernels than the op's. Exported, ATen's formulas: scatter_reduce mean "
        "(floor division for integers, include_self both ways) and cross_entropy agree to float "
        "rounding (with weight= and reduction=\"mean\" the weight total may differ by 1 ulp).",
        code,
    )

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        yield from super().visit_BinOp(node, ctx)
        yield from kept_constant_finding(self, node, ctx)  # `d + 1e-9`

    def visit_Call(self, node, ctx):
        yield from kept_constant_finding(self, node, ctx)  # `torch.add(d, 1e-9)`
        found = match_call(node, ctx)
        if found is None:
            yield from super().visit_Call(node, ctx)  # layers (nn.AvgPool2d(divisor_override=...))
            return
        if found[1].key not in self.keys:
            return
        if found[1].key in ("scatter_reduce", "scatter_reduce_"):
            reduce = argument(node, "reduce", 4, found[2])
            mean = isinstance(reduce, ast.Constant) and reduce.value == "mean"
            if not mean and not _leaves_self_out(node):
                return  # other reductions, self included, export correctly in both exporters
        elif found[1].key == "cross_entropy":
            smoothing = argument(node, "label_smoothing", 7, False)
            if isinstance(smoothing, ast.Constant) and smoothing.value in (0, 0.0):
                return
        yield from super().visit_Call(node, ctx)

    def cases(self, decomposition, node, ctx):
        """A reduction other than a literal "mean" is reported for include_self=False only: what
        the catalog measures for it is legacy's refusal ("scatter_reduce amax" leaves self out)."""
        if decomposition.key in ("scatter_reduce", "scatter_reduce_"):
            reduce = argument(node, "reduce", 4, decomposition.key == "scatter_reduce_" or _is_method(node))
            if not (isinstance(reduce, ast.Constant) and reduce.value == "mean"):
                return ("scatter_reduce amax",)
        return decomposition.catalog_cases


def _is_method(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and not (
        isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")


def _leaves_self_out(node: ast.Call) -> bool:
    """`include_self=False`, which the legacy exporter refuses for every reduction (the reduction
    itself may be anything, a variable or an f-string: PyG's `reduce=f"a{reduce}"`)."""
    return any(k.arg == "include_self" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in node.keywords)


RULES = [DynamoSilentlyWrong]
