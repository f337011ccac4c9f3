"""ONX5xx: operators the exporters cannot translate, and the opset an export call needs.

Which calls break which exporter comes from the measured catalog
(``onnxfix/data/operator_catalog.json``, written by ``python -m onnxfix.exporter.catalog_probe``),
not from a hand-typed list: after a torch upgrade that fixes an operator, re-running the probe
silences its rule. The fixes rewrite the call to a helper from ``onnxfix/decompositions/``,
written into the user's file once; ``onnxfix export --decompose`` applies the same helpers at
export time without touching the source.
"""

from __future__ import annotations

import ast
from typing import ClassVar

from onnxfix import operator_catalog as catalog
from onnxfix.decompositions import BY_KEY, Decomposition, by_target, helper_chain, helper_source, signature
from onnxfix.rewriter.context import FunctionContext, ModuleContext
from onnxfix.rewriter.rule import DYNAMO, LEGACY, Edit, Fix, Helper, Rule, RuleDoc

TARGETS = by_target()
PROBE = "python -m onnxfix.exporter.catalog_probe"


def match_call(node: ast.Call, ctx: FunctionContext) -> tuple[str, Decomposition, bool] | None:
    """(torch name, decomposition, is a Tensor method call) for a call with a decomposition."""
    qualname = ctx.qualname(node.func)
    if qualname in TARGETS:
        return qualname, TARGETS[qualname], False
    func = node.func
    if qualname is None and isinstance(func, ast.Attribute):
        name = f"Tensor.{func.attr}"
        if name in TARGETS and ctx.tensors.is_tensor(func.value) is not False:
            return name, TARGETS[name], True
    return None


def selected_variant(decomposition: Decomposition, node: ast.Call) -> bool:
    """Calls whose arguments make the op fail (sort only with stable=True, scatter with reduce)."""
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    if decomposition.when_keyword:
        name, value = decomposition.when_keyword
        given = keywords.get(name)
        if not (isinstance(given, ast.Constant) and given.value is value):
            return False
    if decomposition.when_present and decomposition.when_present[0] not in keywords:
        return False
    return True


def helper_accepts(decomposition: Decomposition, node: ast.Call, method: bool) -> bool:
    """The call's arguments bind to the helper's parameters (no out=, *args, **kwargs)."""
    positional, keywords = signature(decomposition.key)
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return False
    count = len(node.args) + (1 if method else 0)
    named = {k.arg for k in node.keywords}
    return count <= len(positional) and named <= keywords and not named & set(positional[:count])


def helper_fix(decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, method: bool, safe: bool) -> Fix:
    helpers = tuple(Helper(f"_onnx_{key}", helper_source(key)) for key in helper_chain(decomposition.key))
    name = decomposition.helper
    source = ctx.file.source
    if method:
        func = node.func
        call_start = source.span(node)[0]
        func_end = source.span(func)[1]
        paren = source.text.index("(", func_end)
        receiver = ctx.segment(func.value)
        separator = ", " if node.args or node.keywords else ""
        edits = (Edit(call_start, func_end, name), Edit(paren + 1, paren + 1, receiver + separator))
    else:
        edits = (ctx.replace(node.func, name),)
    return Fix(f"Rewrite to `{name}(...)` (exportable ops, helper added to the file)", edits, safe,
               imports=("torch",), helpers=helpers)


class DecompositionRule(Rule):
    """A call to an op the exporters reject, rewritten to its decomposition helper."""

    keys: ClassVar[tuple[str, ...]] = ()
    fix_availability = "sometimes"

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        found = match_call(node, ctx)
        if found is None or found[1].key not in self.keys:
            return
        name, decomposition, method = found
        if not selected_variant(decomposition, node):
            return
        failed = catalog.failures(self.cases(decomposition, node))
        if not failed:
            return  # the installed torch exports this variant (per the catalog)
        fix = None
        if helper_accepts(decomposition, node, method):
            fix = helper_fix(decomposition, node, ctx, method, self.is_safe(decomposition, node, ctx, method))
        message = (
            f"`{name}` breaks ONNX export ({catalog.describe(failed)}; measured on torch "
            f"{catalog.torch_version()}); `{decomposition.helper}` computes it with exportable ops"
        )
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))

    def cases(self, decomposition: Decomposition, node: ast.Call) -> tuple[str, ...]:
        return decomposition.cases

    def is_safe(self, decomposition: Decomposition, node: ast.Call, ctx: FunctionContext, method: bool) -> bool:
        if method and ctx.tensors.is_tensor(node.func.value) is not True:
            return False  # `.cumprod()` on something that may be a NumPy array
        return decomposition.exact


def _doc(what, why, example, use_instead, safety, keys) -> RuleDoc:
    references = tuple(ref for key in keys for ref in BY_KEY[key].evidence)
    notes = " ".join(f"`_onnx_{key}`: {BY_KEY[key].notes}" for key in keys)
    bounds = " ".join(f"`_onnx_{key}`: {BY_KEY[key].error_bound}." for key in keys if BY_KEY[key].error_bound)
    unreported = [f"`{BY_KEY[key].targets[0]}`" for key in keys if not BY_KEY[key].evidence]
    evidence = (
        "Priority evidence: the public issue reports listed under References (searched on the "
        "pytorch/pytorch and onnx/onnx trackers)."
        + (f" No public report was found for {', '.join(unreported)}: included because the catalog "
           "measures it failing in both exporters." if unreported else "")
    )
    return RuleDoc(
        what=what + "\n\nDecompositions (onnxfix/decompositions/): " + notes,
        why=why + f"\n\nWhich exporters fail is read from the measured catalog ({PROBE}). " + evidence,
        example=example, use_instead=use_instead,
        fix_safety=safety + (("\n\nMeasured error bounds: " + bounds) if bounds else ""),
        references=references,
    )


class LinalgInverse(DecompositionRule):
    code = "ONX501"
    name = "linalg-inverse-solve"
    summary = "`torch.linalg.inv` / `solve` do not export: rewrite to Gauss-Jordan elimination"
    keys = ("linalg_inv", "linalg_solve")
    default_safety = "unsafe"
    doc = _doc(
        "Finds `torch.linalg.inv`, `torch.inverse`, `Tensor.inverse` and `torch.linalg.solve`.",
        "ONNX has no matrix inverse or solver (onnx/onnx#3300). Both exporters fail: legacy with "
        "`UnsupportedOperatorError: aten::linalg_inv`, dynamo with `No ONNX function found for "
        "aten.linalg_inv_ex`. Users hit this most of all operators (references).",
        "def forward(self, a, b):\n    return torch.linalg.inv(a) @ b",
        "def forward(self, a, b):\n    return _onnx_linalg_inv(a) @ b",
        "Unsafe: the elimination order and rounding differ from LAPACK (differences grow with "
        "the condition number), and a singular matrix gives inf/NaN where torch raises.",
        keys,
    )


class CumulativeOp(DecompositionRule):
    code = "ONX502"
    name = "cumulative-product-extrema"
    summary = "`cumprod` / `cummax` / `cummin` do not export: rewrite to a masked reduction"
    keys = ("cumprod", "cummax", "cummin")
    default_safety = "safe"
    doc = _doc(
        "Finds `torch.cumprod`, `torch.cummax`, `torch.cummin` and their Tensor methods.",
        "ONNX has CumSum only. Legacy fails with `aten::cumprod` / `aten::cummax`; dynamo with "
        "`prims.prod` / `aten.cummax`. The common workaround exp(cumsum(log x)) is wrong for "
        "zeros and negative values.",
        "def forward(self, x):\n    return torch.cumprod(x, dim=1)",
        "def forward(self, x):\n    return _onnx_cumprod(x, dim=1)",
        "Safe: the same values (and for cummax/cummin the same indices, last occurrence, NaN "
        "propagation) as eager, measured on ties, NaN, integers and batched inputs. Costs "
        "O(n^2) memory along `dim`.",
        keys,
    )


class OrderStatistic(DecompositionRule):
    code = "ONX503"
    name = "order-statistic"
    summary = "`median` / `nanmedian` / `kthvalue` / `mode` do not export: rewrite to pairwise ranks"
    keys = ("kthvalue", "median", "nanmedian", "mode")
    default_safety = "per-finding"
    doc = _doc(
        "Finds `torch.median`, `torch.nanmedian`, `torch.kthvalue`, `torch.mode` (functions "
        "and Tensor methods).",
        "Neither exporter has a translation (`aten::median`, `aten.kthvalue.default`, ...), "
        "although `topk` and `sort` export.",
        "def forward(self, x):\n    return torch.median(x, dim=1).values",
        "def forward(self, x):\n    return _onnx_median(x, dim=1).values",
        "Values are exact (NaN handling as torch). Indices of tied values may name another of "
        "the tied positions (torch documents them as unspecified for median): the fix is safe "
        "when only `.values` / `[0]` is used, or for `mode`, and unsafe otherwise.",
        keys,
    )

    def is_safe(self, decomposition, node, ctx, method):
        if not super().is_safe(decomposition, node, ctx, method):
            return False
        if decomposition.key == "mode":
            return True
        if decomposition.key in ("median", "nanmedian") and _reduces_all(node, method):
            return True  # no dim: a plain tensor, no indices
        parent = ctx.parent(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "values":
            return True
        return isinstance(parent, ast.Subscript) and isinstance(parent.slice, ast.Constant) and parent.slice.value == 0


def _reduces_all(node: ast.Call, method: bool) -> bool:
    return len(node.args) == (0 if method else 1) and not any(k.arg in ("dim", "keepdim") for k in node.keywords)


class StableSort(DecompositionRule):
    code = "ONX504"
    name = "stable-sort"
    summary = "`sort` / `argsort` with `stable=True` do not export: rewrite to stable ranks"
    keys = ("sort", "argsort")
    default_safety = "safe"
    doc = _doc(
        "Finds `torch.sort(..., stable=True)` and `torch.argsort(..., stable=True)`.",
        "ONNX TopK is not stable. Legacy fails with \"Unsupported: ONNX export of operator "
        "Sort, Out parameter is not supported\"; dynamo with `aten.sort.stable`.",
        "def forward(self, x):\n    return torch.argsort(x, dim=-1, stable=True)",
        "def forward(self, x):\n    return _onnx_argsort(x, dim=-1, stable=True)",
        "Safe: a stable sort has one answer, and the helper gives it (NaN last, first when "
        "descending). O(n^2) memory along `dim`.",
        keys,
    )


class SearchSorted(DecompositionRule):
    code = "ONX505"
    name = "searchsorted"
    summary = "`torch.searchsorted` does not export: rewrite to comparison counts"
    keys = ("searchsorted",)
    default_safety = "safe"
    doc = _doc(
        "Finds `torch.searchsorted` (all its keyword forms: right, side, sorter, out_int32).",
        "Neither exporter translates `aten::searchsorted`. It is common in normalizing flows "
        "and spline code (references).",
        "def forward(self, edges, x):\n    return torch.searchsorted(edges, x)",
        "def forward(self, edges, x):\n    return _onnx_searchsorted(edges, x)",
        "Safe for sorted sequences without NaN (torch's own result is undefined otherwise).",
        keys,
    )


class ElementwiseMath(DecompositionRule):
    code = "ONX506"
    name = "elementwise-math"
    summary = "`hypot` / `copysign` / `gcd` / `lcm` do not export: rewrite to exportable arithmetic"
    keys = ("hypot", "copysign", "gcd", "lcm")
    default_safety = "per-finding"
    doc = _doc(
        "Finds `torch.hypot`, `torch.copysign`, `torch.gcd`, `torch.lcm` (functions and methods).",
        "Their ATen kernels decompose into prims the ONNX registry lacks (`prims.hypot`, "
        "`prims.signbit`, `prims.gcd`); legacy has no symbolic at all.",
        "def forward(self, a, b):\n    return torch.hypot(a, b)",
        "def forward(self, a, b):\n    return _onnx_hypot(a, b)",
        "hypot, gcd and lcm are safe (exact for integers; hypot within 2 ulp, overflow-free). "
        "copysign is unsafe: a NaN with its sign bit set in `other` counts as positive.",
        keys,
    )


class ErfinvApproximation(DecompositionRule):
    code = "ONX507"
    name = "erfinv-approximation"
    summary = "`torch.erfinv` does not export: rewrite to a polynomial approximation"
    keys = ("erfinv",)
    default_safety = "unsafe"
    doc = _doc(
        "Finds `torch.erfinv`, `torch.special.erfinv` and `Tensor.erfinv`.",
        "ONNX has Erf but no inverse: legacy fails on `aten::erfinv`, dynamo on "
        "`prims.erf_inv`.",
        "def forward(self, u):\n    return torch.erfinv(2 * u - 1)",
        "def forward(self, u):\n    return _onnx_erfinv(2 * u - 1)",
        "Unsafe: an approximation (not bit-identical to torch).",
        keys,
    )


class ScatterReduceArgument(DecompositionRule):
    code = "ONX508"
    name = "scatter-reduce-argument"
    summary = "`scatter(..., reduce=...)` does not export: rewrite to `scatter_reduce`"
    keys = ("scatter",)
    default_safety = "safe"
    doc = _doc(
        "Finds `torch.scatter` / `Tensor.scatter` with the deprecated `reduce=` argument.",
        "Legacy fails (\"A mismatch between the number of arguments (5) and their descriptors "
        "(4)\"), dynamo fails on `aten.scatter.reduce`; `scatter_reduce` exports in both.",
        "def forward(self, x, i, v):\n    return x.scatter(0, i, v, reduce=\"multiply\")",
        "def forward(self, x, i, v):\n    return _onnx_scatter(x, 0, i, v, reduce=\"multiply\")",
        "Safe: the same operation under its non-deprecated name.",
        keys,
    )


class AdaptiveMaxPoolUneven(DecompositionRule):
    code = "ONX509"
    name = "adaptive-max-pool-uneven"
    summary = "`adaptive_max_pool2d` does not export: rewrite to one max per output cell"
    keys = ("adaptive_max_pool2d",)
    default_safety = "safe"
    doc = _doc(
        "Finds `F.adaptive_max_pool2d`. (`nn.AdaptiveMaxPool2d` modules are decomposed by "
        "`onnxfix export --decompose`.)",
        "Legacy refuses output sizes that do not divide the input size (\"output size that are "
        "not factor of input size\"); dynamo has no translation at all "
        "(`aten.adaptive_max_pool2d`).",
        "def forward(self, x):\n    return F.adaptive_max_pool2d(x, (3, 3))",
        "def forward(self, x):\n    return _onnx_adaptive_max_pool2d(x, (3, 3))",
        "Safe: the same bins, values and indices (return_indices=True) as torch. The input's H "
        "and W must be static at export time (the loop over output cells is unrolled).",
        keys,
    )


class CdistBroadcast(DecompositionRule):
    code = "ONX510"
    name = "cdist-broadcast"
    summary = "`torch.cdist` fails in dynamo and is silently wrong for p=1 in legacy: rewrite"
    keys = ("cdist",)
    default_safety = "safe"
    doc = _doc(
        "Finds `torch.cdist`.",
        "Dynamo fails on `aten._cdist_forward` for every p; legacy exports p=1 but onnxruntime "
        "returns NaN and wrong values (silently wrong, measured).",
        "def forward(self, a, b):\n    return torch.cdist(a, b, p=1)",
        "def forward(self, a, b):\n    return _onnx_cdist(a, b, p=1)",
        "Safe: the same distances (eager cdist may use a matrix-multiply formula for p=2 on "
        "large inputs; the two agree to float rounding).",
        keys,
    )

    def cases(self, decomposition, node):
        p = next((k.value for k in node.keywords if k.arg == "p"), node.args[2] if len(node.args) > 2 else None)
        if p is None:
            return ("cdist p=2",)
        if isinstance(p, ast.Constant) and p.value in (1, 1.0):
            return ("cdist p=1",)
        if isinstance(p, ast.Constant) and p.value in (2, 2.0):
            return ("cdist p=2",)
        return decomposition.cases


# Ops whose failure does not depend on their arguments and that have no decomposition, grouped
# by why. Only these are reported by ONX511, and only where the catalog measures them failing
# (an op like torch.narrow fails for one argument form only, so it is not listed).
NO_DECOMPOSITION_REASONS = (
    (("torch.unique", "torch.nonzero", "torch.masked_select", "torch.combinations",
      "torch.bincount", "torch.repeat_interleave", "torch.linalg.lstsq"),
     "its output size depends on the input values, which a fixed-shape ONNX graph cannot express"),
    (("torch.linalg.eigh", "torch.linalg.eigvalsh", "torch.linalg.eigvals", "torch.linalg.svd", "torch.linalg.svdvals",
      "torch.linalg.qr", "torch.linalg.cholesky", "torch.cholesky", "torch.linalg.pinv", "torch.linalg.matrix_exp",
      "torch.linalg.slogdet", "torch.linalg.solve_triangular", "torch.linalg.matrix_rank"),
     "it needs an iterative or factorising algorithm; no exact fixed-size decomposition is offered"),
    (("torch.lgamma", "torch.digamma", "torch.polygamma", "torch.mvlgamma", "torch.special.i0",
      "torch.special.i0e", "torch.special.i1", "torch.special.ndtri", "torch.special.zeta",
      "torch.special.bessel_j0", "torch.special.gammaln", "torch.frexp"),
     "a special function with no ONNX op; onnxfix has no decomposition for it yet"),
    (("torch.vander", "torch.cov", "torch.corrcoef", "torch.nn.functional.ctc_loss", "torch.randperm",
      "torch.istft", "Tensor.index_reduce"),
     "onnxfix has no decomposition for it yet"),
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
    doc = RuleDoc(
        what="Finds calls to torch functions whose export fails whatever their arguments and "
        "that no ONX5xx decomposition covers (linalg factorisations, special functions such as "
        "lgamma/digamma/zeta, ops with data-dependent output sizes, ...), where the catalog "
        "measured the failure for an exporter the project targets.",
        why="The export fails (or, for data-dependent sizes, cannot be expressed with fixed "
        f"shapes). The verdict and error come from the measured catalog ({PROBE}).",
        example="def forward(self, a):\n    return torch.linalg.eigh(a).eigenvalues",
        use_instead="# compute it outside the exported model, or with an iterative method\n"
        "# written in exportable ops (e.g. a fixed number of power iterations)",
        fix_safety="No fix: there is no faithful decomposition (or none yet).",
        references=("https://github.com/pytorch/pytorch/issues/133052",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        qualname = ctx.qualname(node.func)
        if qualname not in NO_DECOMPOSITION_OPS or qualname in TARGETS:
            return  # a decomposition rule reports ops that have a decomposition
        failed = catalog.fails_always(qualname)
        if not failed:
            return
        message = (
            f"`{qualname}` breaks ONNX export ({catalog.describe(failed)}; measured on torch "
            f"{catalog.torch_version()}) and has no decomposition: {_no_decomposition_reason(qualname)}"
        )
        yield ctx.report(self, node, message, exporters=tuple(sorted(failed)))


class OpsetTooLow(Rule):
    code = "ONX520"
    name = "opset-too-low"
    summary = "`torch.onnx.export(opset_version=N)` is lower than an operator of the model needs"
    fix_availability = "always"
    default_safety = "safe"
    scope = "module"
    doc = RuleDoc(
        what="At a `torch.onnx.export(...)` call with a literal `opset_version`, checks the "
        "operators the model code in the same file calls against the catalog's lowest working "
        "opset for that exporter (`dynamo=False` selects legacy, otherwise dynamo). Unlike most "
        "rules it looks at script code, where export calls live, not at `forward`.",
        why="Some ONNX ops only exist from a given opset: `F.fold` needs Col2Im (opset 18) and "
        "`F.affine_grid` AffineGrid (opset 20) with the legacy exporter, which then fails with "
        "\"Exporting the operator 'aten::col2im' to ONNX opset version 17 is not supported\".",
        example="torch.onnx.export(model, args, \"m.onnx\", dynamo=False, opset_version=17)",
        use_instead="torch.onnx.export(model, args, \"m.onnx\", dynamo=False, opset_version=18)",
        fix_safety="Safe: the opset changes the exported file, never what the model computes "
        "in PyTorch. Runtimes must support the suggested opset.",
        references=("https://onnx.ai/onnx/operators/onnx__Col2Im.html",),
    )

    def check_module(self, ctx: ModuleContext):
        used = self._ops_used(ctx)
        if not used:
            return
        for node in ast.walk(ctx.tree):
            if isinstance(node, ast.Call) and ctx.qualname(node.func) == "torch.onnx.export":
                finding = self._check_export(node, used, ctx)
                if finding is not None:
                    yield finding

    def _ops_used(self, ctx: ModuleContext) -> dict[str, ast.Call]:
        used: dict[str, ast.Call] = {}
        ops = catalog.cases_by_op()
        for fn in ctx.export_functions:
            for node in ast.walk(fn.node):
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
        dynamo = keywords.get("dynamo")
        exporter = LEGACY if isinstance(dynamo, ast.Constant) and dynamo.value is False else DYNAMO
        needs = []
        for op, call in used.items():
            required = catalog.required_opset(op, exporter)
            if required and required[0] > opset.value:
                needs.append((required[0], op, call.lineno))
        if not needs:
            return None
        lowest, op, line = max(needs)
        fix = Fix(f"Use opset_version={lowest}", (ctx.replace(opset, str(lowest)),), safe=True)
        message = (
            f"opset_version={opset.value} is too low for `{op}` (line {line}) with the {exporter} "
            f"exporter: the lowest opset that works is {lowest} (measured on torch {catalog.torch_version()})"
        )
        return ctx.report(self, opset, message, fix=fix, exporters=(exporter,))


RULES = [
    LinalgInverse, CumulativeOp, OrderStatistic, StableSort, SearchSorted, ElementwiseMath,
    ErfinvApproximation, ScatterReduceArgument, AdaptiveMaxPoolUneven, CdistBroadcast,
    UnsupportedOperator, OpsetTooLow,
]


# ---- ONX512 linear-algebra factorisations (decompositions/registry_linalg.py) ------------------


# ---- ONX513 spectral linear algebra (decompositions/registry_spectral.py) ----------------------


# ---- ONX514 special functions (decompositions/registry_special.py) -----------------------------


class SpecialFunction(DecompositionRule):
    code = "ONX514"
    name = "special-function"
    summary = "Special functions (`lgamma`, `digamma`, ...) do not export: rewrite to series and recurrences"
    keys = ("lgamma", "digamma", "polygamma", "zeta", "mvlgamma", "i0", "i0e", "i1", "i1e", "ndtri", "bessel_j0", "frexp")
    default_safety = "per-finding"
    doc = _doc(
        "Finds `torch.lgamma` / `torch.special.gammaln`, `torch.digamma` / "
        "`torch.special.digamma` / `torch.special.psi`, `torch.polygamma` / "
        "`torch.special.polygamma`, `torch.special.zeta`, `torch.mvlgamma` / "
        "`torch.special.multigammaln`, the modified Bessel functions `torch.special.i0` / "
        "`torch.i0`, `i0e`, `i1`, `i1e`, `torch.special.bessel_j0`, the normal quantile "
        "`torch.special.ndtri`, `torch.frexp`, and their "
        "Tensor methods (not `Tensor.polygamma`, "
        "whose receiver is the second argument).",
        "ONNX has no gamma-family op: legacy fails with `aten::lgamma` / `aten::digamma`, dynamo "
        "with `prims.lgamma` / `prims.digamma`. They are common in losses and likelihoods "
        "(Beta, Dirichlet, Poisson, negative binomial).",
        "def forward(self, alpha):\n    return torch.lgamma(alpha).sum(-1) - torch.lgamma(alpha.sum(-1))",
        "def forward(self, alpha):\n    return _onnx_lgamma(alpha).sum(-1) - _onnx_lgamma(alpha.sum(-1))",
        "frexp is safe (bit-identical). digamma, i0, i0e, i1, i1e, bessel_j0, ndtri, and "
        "polygamma with a literal order 0 or 1 (digamma, "
        "trigamma), are safe: "
        "ATen's own formula and coefficients, evaluated with the same arithmetic (unrolled "
        "loops, torch.where per element), equal up to the rounding of log, sin, tan and exp "
        "and of the multiply-adds the compiled kernels fuse. lgamma "
        "and mvlgamma are unsafe: torch calls libm's lgamma and the helper is another algorithm "
        "(float64 series, within the measured bound below); mvlgamma also returns values where "
        "torch raises (x <= (p-1)/2). zeta and polygamma of order >= 2 are unsafe: ATen's "
        "formula, but its direct sum is cut at 40 terms, so q <= -31 gives NaN. Every helper "
        "exports with fixed operations (no data-dependent Python control flow).",
        keys,
    )

    def is_safe(self, decomposition, node, ctx, method):
        if decomposition.key == "polygamma":
            order = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "n"), None)
            exact_order = isinstance(order, ast.Constant) and type(order.value) is int and order.value in (0, 1)
            return exact_order and super().is_safe(BY_KEY["digamma"], node, ctx, method)
        return super().is_safe(decomposition, node, ctx, method)


RULES.append(SpecialFunction)


# ---- ONX515-ONX516 structural ops, dynamo's silent bugs (decompositions/registry_structural.py) -


# ---- ONX517-ONX518 legacy-only failures and silent bugs (decompositions/registry_legacy.py) -----

