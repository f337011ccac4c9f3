"""ONX501-ONX510: linear solves, cumulative ops, order statistics, stable sort, searchsorted,
elementwise math, erfinv, scatter with reduce=, uneven adaptive max pooling, cdist."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.patterns.operators.base import (
    DecompositionRule,
    global_pooling,
    argument,
    literal,
    match_call,
    reads_only_first_field,
    rule_doc,
)
from onnxfix.patterns.operators.module_calls import UNKNOWN
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix


class LinalgInverse(DecompositionRule):
    code = "ONX501"
    name = "linalg-inverse-solve"
    summary = "`torch.linalg.inv` / `solve` do not export: rewrite to Gauss-Jordan elimination"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.linalg.inv`, `torch.inverse`, `Tensor.inverse` and `torch.linalg.solve`.",
        "ONNX has no matrix inverse or solver (onnx/onnx#3300). Both exporters fail: legacy with "
        "`UnsupportedOperatorError: aten::linalg_inv`, dynamo with `No ONNX function found for "
        "aten.linalg_inv_ex`. Users hit this most of all operators (references).",
        "def forward(self, a, b):\n    return torch.linalg.inv(a) @ b",
        "def forward(self, a, b):\n    return _onnx_linalg_inv(a) @ b",
        "Safe: outside export the helpers return `torch.linalg.inv` / `torch.linalg.solve` "
        "itself (they branch on `torch.onnx.is_in_onnx_export()`, False in eager), so eager "
        "outputs and errors (a singular matrix raises) are bit-identical. Only the exported "
        "model runs the elimination, whose order and rounding differ from LAPACK (differences "
        "grow with the condition number; a singular matrix gives inf/NaN there).",
        code,
    )


class CumulativeOp(DecompositionRule):
    code = "ONX502"
    name = "cumulative-product-extrema"
    summary = "`cumprod` / `cummax` / `cummin` do not export: rewrite to a masked reduction"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.cumprod`, `torch.cummax`, `torch.cummin` and their Tensor methods.",
        "ONNX has CumSum only. Legacy fails with `aten::cumprod` / `aten::cummax`; dynamo with "
        "`prims.prod` / `aten.cummax`. The common workaround exp(cumsum(log x)) is wrong for "
        "zeros and negative values.",
        "def forward(self, x):\n    return torch.cumprod(x, dim=1)",
        "def forward(self, x):\n    return _onnx_cumprod(x, dim=1)",
        "Safe. cummax and cummin are exact by construction (comparisons, max/min and gathers): "
        "the same values and indices as eager (last occurrence, NaN propagation) on every CPU. "
        "cumprod returns torch.cumprod itself outside export (`torch.onnx.is_in_onnx_export()`, "
        "False in eager): its masked product reduction multiplies floats in another order than "
        "ATen's sequential cumprod (which accumulates float32 in float64), so only the exported "
        "model runs it (exact for integers). Costs O(n^2) memory along `dim`.",
        code,
    )


class OrderStatistic(DecompositionRule):
    code = "ONX503"
    name = "order-statistic"
    summary = "`median` / `nanmedian` / `kthvalue` / `mode` do not export: rewrite to pairwise ranks"
    default_safety = "per-finding"
    doc = rule_doc(
        "Finds `torch.median`, `torch.nanmedian`, `torch.kthvalue`, `torch.mode` (functions "
        "and Tensor methods).",
        "Neither exporter has a translation (`aten::median`, `aten.kthvalue.default`, ...), "
        "although `topk` and `sort` export.",
        "def forward(self, x):\n    return torch.median(x, dim=1).values",
        "def forward(self, x):\n    return _onnx_median(x, dim=1).values",
        "Values are exact (NaN handling as torch). Indices of tied values may name another of "
        "the tied positions (torch documents them as unspecified for median): the fix is safe "
        "when only `.values` / `[0]` is used, and unsafe otherwise. `mode` returns torch.mode "
        "itself outside export (`torch.onnx.is_in_onnx_export()`, False in eager; its pairwise "
        "counts treat NaN otherwise than torch), so its fix is safe.",
        code,
    )

    def is_safe(self, decomposition, node, ctx, method, receiver_proven=False):
        if not super().is_safe(decomposition, node, ctx, method, receiver_proven):
            return False
        if decomposition.key == "mode":
            return True
        if decomposition.key in ("median", "nanmedian") and _reduces_all(node, method):
            return True  # no dim: a plain tensor, no indices
        return reads_only_first_field(node, ctx, "values")


def _reduces_all(node: ast.Call, method: bool) -> bool:
    return len(node.args) == (0 if method else 1) and not any(k.arg in ("dim", "keepdim") for k in node.keywords)


class StableSort(DecompositionRule):
    code = "ONX504"
    name = "stable-sort"
    summary = "`sort` / `argsort` with `stable=True` do not export: rewrite to stable ranks"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.sort(..., stable=True)` and `torch.argsort(..., stable=True)`.",
        "ONNX TopK is not stable. Legacy fails with \"Unsupported: ONNX export of operator "
        "Sort, Out parameter is not supported\"; dynamo with `aten.sort.stable`.",
        "def forward(self, x):\n    return torch.argsort(x, dim=-1, stable=True)",
        "def forward(self, x):\n    return _onnx_argsort(x, dim=-1, stable=True)",
        "Safe: a stable sort has one answer, and the helper gives it (NaN last, first when "
        "descending). O(n^2) memory along `dim`. An explicit `stable=False` (which both exporters "
        "also refuse: it selects the `sort.stable` overload) is dropped: the default call is that "
        "very overload with stable=false in ATen, bit-identical.",
        code,
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        yield from super().visit_Call(node, ctx)
        found = match_call(node, ctx)
        if found is None or found[1].key not in ("sort", "argsort"):
            return
        keyword = next((k for k in node.keywords if k.arg == "stable"), None)
        if keyword is None or literal(keyword.value) not in (False, None):
            return
        failed = catalog.failures(("sort stable=False",))
        if not failed:
            return
        message = (f"`{found[0]}(..., stable={ctx.segment(keyword.value)})` breaks ONNX export "
                   f"({catalog.describe(failed)}; measured on torch {catalog.torch_version()}): the "
                   "keyword selects the `sort.stable` overload; without it the call is the same sort")
        fix = Fix("Drop the `stable=` keyword (the default is the same unstable sort)",
                  (_without_argument(node, keyword, ctx),), True)
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))


def _without_argument(node: ast.Call, argument: ast.AST, ctx: FunctionContext) -> Edit:
    """The edit deleting one argument of a call with its comma."""
    source = ctx.file.source
    siblings = sorted([*node.args, *node.keywords], key=lambda n: (n.lineno, n.col_offset))
    index = siblings.index(argument)
    start, end = source.span(argument)
    if index > 0:
        start = source.span(siblings[index - 1])[1]
    elif index + 1 < len(siblings):
        end = source.span(siblings[index + 1])[0]
    return Edit(start, end, "")


class SearchSorted(DecompositionRule):
    code = "ONX505"
    name = "searchsorted"
    summary = "`torch.searchsorted` does not export: rewrite to comparison counts"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.searchsorted` (all its keyword forms: right, side, sorter, out_int32).",
        "Neither exporter translates `aten::searchsorted`. It is common in normalizing flows "
        "and spline code (references).",
        "def forward(self, edges, x):\n    return torch.searchsorted(edges, x)",
        "def forward(self, edges, x):\n    return _onnx_searchsorted(edges, x)",
        "Safe for sorted sequences without NaN (torch's own result is undefined otherwise).",
        code,
    )


class ElementwiseMath(DecompositionRule):
    code = "ONX506"
    name = "elementwise-math"
    summary = "`hypot` / `copysign` / `gcd` / `lcm` / `fmax` / `fmin` / eval `rrelu` do not export: rewrite to exportable arithmetic"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.hypot`, `torch.copysign`, `torch.gcd`, `torch.lcm`, `torch.fmax`, `torch.fmin` "
        "(functions and methods), "
        "and `F.rrelu` / `nn.RReLU` (evaluated: random slopes only in training).",
        "Their ATen kernels decompose into prims the ONNX registry lacks (`prims.hypot`, "
        "`prims.signbit`, `prims.gcd`, `prims.fmax`); legacy has no symbolic at all. The dynamo exporter has no "
        "translation of `aten.rrelu_with_noise`, which eval-mode RReLU calls.",
        "def forward(self, a, b):\n    return torch.hypot(a, b)",
        "def forward(self, a, b):\n    return _onnx_hypot(a, b)",
        "Safe: every helper returns the torch op itself outside export "
        "(`torch.onnx.is_in_onnx_export()`), bit-identical in eager. The exported gcd and lcm are exact but "
        "at the type's minimum (whose absolute value overflows in torch's own loop); the exported "
        "hypot is within 2 ulp (overflow-free) and the exported copysign counts a NaN with its "
        "sign bit set in `other` as positive.",
        code,
    )


class ErfinvApproximation(DecompositionRule):
    code = "ONX507"
    name = "erfinv-approximation"
    summary = "`torch.erfinv` does not export: rewrite to a polynomial approximation"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.erfinv`, `torch.special.erfinv` and `Tensor.erfinv`.",
        "ONNX has Erf but no inverse: legacy fails on `aten::erfinv`, dynamo on "
        "`prims.erf_inv`.",
        "def forward(self, u):\n    return torch.erfinv(2 * u - 1)",
        "def forward(self, u):\n    return _onnx_erfinv(2 * u - 1)",
        "Safe: outside export the helper returns `torch.erfinv` itself "
        "(`torch.onnx.is_in_onnx_export()` is False in eager), bit-identical; only the exported "
        "model computes the approximation (bound below).",
        code,
    )


class ScatterReduceArgument(DecompositionRule):
    code = "ONX508"
    name = "scatter-reduce-argument"
    summary = "`scatter(..., reduce=...)` does not export: rewrite to `scatter_reduce`"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.scatter` / `Tensor.scatter` with the deprecated `reduce=` argument.",
        "Legacy fails (\"A mismatch between the number of arguments (5) and their descriptors "
        "(4)\"), dynamo fails on `aten.scatter.reduce`; `scatter_reduce` exports in both.",
        "def forward(self, x, i, v):\n    return x.scatter(0, i, v, reduce=\"multiply\")",
        "def forward(self, x, i, v):\n    return _onnx_scatter(x, 0, i, v, reduce=\"multiply\")",
        "Safe: the helper returns torch.scatter itself outside export "
        "(`torch.onnx.is_in_onnx_export()`, False in eager), since scatter_reduce accumulates "
        "through another ATen kernel path than scatter(reduce=); exported, it is the same "
        "operation under its non-deprecated name.",
        code,
    )


class AdaptiveMaxPoolUneven(DecompositionRule):
    code = "ONX509"
    name = "adaptive-max-pool-uneven"
    summary = ("`adaptive_max_pool2d` / `adaptive_max_pool1d` / `adaptive_avg_pool3d` do not export: rewrite to one "
               "max or mean per output cell")
    default_safety = "safe"
    doc = rule_doc(
        "Finds `F.adaptive_max_pool2d`, `F.adaptive_max_pool1d` and `F.adaptive_avg_pool3d`, and "
        "the layers whose forward they are (`nn.AdaptiveMaxPool2d`, `nn.AdaptiveMaxPool1d`: "
        "fastai's AdaptiveConcatPool1d; `nn.AdaptiveAvgPool3d`: video and volume heads), but an average "
        "pooling to 1 on every axis, a mean both exporters take.",
        "Legacy refuses output sizes that do not divide the input size (\"output size that are "
        "not factor of input size\"); dynamo has no translation at all "
        "(`aten.adaptive_max_pool2d`, `aten._adaptive_avg_pool3d` for any output size but 1).",
        "def forward(self, x):\n    return F.adaptive_max_pool2d(x, (3, 3))",
        "def forward(self, x):\n    return _onnx_adaptive_max_pool2d(x, (3, 3))",
        "Safe: the same bins, values and indices (return_indices=True) as torch. The input's H "
        "and W must be static at export time (the loop over output cells is unrolled).",
        code,
    )

    def cases(self, decomposition, node, ctx):
        if decomposition.key == "adaptive_avg_pool3d" and global_pooling(node):
            return ()  # a mean over each axis: both exporters take it
        return decomposition.catalog_cases

    def is_safe(self, decomposition, node, ctx, method, receiver_proven=False):
        # the values are exact; the indices of a window holding several NaN are not (ATen takes
        # the last NaN, argmax the first)
        given = argument(node, "return_indices", 2)
        if isinstance(given, ast.Name) and given.id == UNKNOWN:
            given = None  # a layer built without it: the default, False
        return literal(given, False) is False and super().is_safe(decomposition, node, ctx, method, receiver_proven)


class CdistBroadcast(DecompositionRule):
    code = "ONX510"
    name = "cdist-broadcast"
    summary = "`torch.cdist` fails in dynamo and is silently wrong for p=1 in legacy: rewrite"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.cdist`, and ATen's own `torch.ops.aten._cdist_forward` called directly.",
        "Dynamo fails on `aten._cdist_forward` for every p; legacy exports p=1 but onnxruntime "
        "returns NaN and wrong values (silently wrong, measured).",
        "def forward(self, a, b):\n    return torch.cdist(a, b, p=1)",
        "def forward(self, a, b):\n    return _onnx_cdist(a, b, p=1)",
        "Safe: outside export the helper returns `torch.cdist` itself "
        "(`torch.onnx.is_in_onnx_export()` is False in eager), bit-identical for every p. The "
        "exported broadcast differs from ATen's vectorized kernel, which sums |a - b|^p in "
        "another order (and uses a matrix-multiply formula for p=2 on large inputs), so there "
        "p=1 and p=2 agree only to float rounding "
        "(measured up to 2.4e-7 on anomalib's PatchCore, tests/realworld/cdist_patchcore.py).",
        code,
    )

    def cases(self, decomposition, node, ctx):
        if decomposition.key != "cdist":
            return decomposition.catalog_cases  # ATen's _cdist_forward: measured as called
        p = literal(argument(node, "p", 2), 2)
        if p in (1, 1.0):
            return ("cdist p=1",)
        if p in (2, 2.0):
            return ("cdist p=2",)
        return decomposition.catalog_cases


RULES = [
    LinalgInverse, CumulativeOp, OrderStatistic, StableSort, SearchSorted, ElementwiseMath,
    ErfinvApproximation, ScatterReduceArgument, AdaptiveMaxPoolUneven, CdistBroadcast,
]
