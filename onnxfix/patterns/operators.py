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
import dataclasses
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
    """The call's arguments bind to the helper's parameters (no out=, **kwargs; *args only for
    a helper taking *tensors, as torch.block_diag does)."""
    positional, keywords, varargs = signature(decomposition.key)
    if any(k.arg is None for k in node.keywords):
        return False
    if any(isinstance(a, ast.Starred) for a in node.args) and not varargs:
        return False
    count = len(node.args) + (1 if method else 0)
    named = {k.arg for k in node.keywords}
    return (varargs or count <= len(positional)) and named <= keywords and not named & set(positional[:count])


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


def _argument(node: ast.Call, name: str, position: int, method: bool = False) -> ast.AST | None:
    """The argument bound to parameter ``name`` (keyword, or ``position`` in the function
    form; a method call's receiver is the first), None if not given."""
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    position -= 1 if method else 0
    return node.args[position] if 0 <= position < len(node.args) else None


NOT_LITERAL = object()


def _literal(node: ast.AST | None, default=None):
    """The value of a literal argument (numbers, strings, tuples of them, `-2`), ``default`` for
    an argument not given (None), NOT_LITERAL for any other expression."""
    if node is None:
        return default
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return NOT_LITERAL


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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


def _doc(what, why, example, use_instead, safety, keys, legacy_only: bool = False) -> RuleDoc:
    """A rule's documentation from its decompositions' records. ``legacy_only``: the catalog
    measures the ops failing in the legacy exporter only (ONX517-ONX519)."""
    references = tuple(ref for key in keys for ref in BY_KEY[key].evidence)
    notes = " ".join(f"`_onnx_{key}`: {BY_KEY[key].notes}" for key in keys)
    bounds = " ".join(f"`_onnx_{key}`: {BY_KEY[key].error_bound}." for key in keys if BY_KEY[key].error_bound)
    unreported = [f"`{BY_KEY[key].targets[0]}`" for key in keys if not BY_KEY[key].evidence]
    failing_in = "the legacy exporter" if legacy_only else "both exporters"
    evidence = (
        ("Reported only when the project targets the legacy exporter (`[tool.onnxfix] exporters` "
         "includes \"legacy\"): the dynamo exporter handles these calls (measured). " if legacy_only else "")
        + "Priority evidence: the public issue reports listed under References (searched on the "
        "pytorch/pytorch and onnx/onnx trackers)."
        + (f" No public report was found for {', '.join(unreported)}: included because the catalog "
           f"measures it failing in {failing_in}." if unreported else "")
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
        return reads_only_first_field(node, ctx, "values")


def reads_only_first_field(node: ast.Call, ctx: FunctionContext, field: str) -> bool:
    """The call's named-tuple result is used only through its first field (`.values`,
    `.solution`) or `[0]`: fields a helper does not reproduce exactly are never read."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute) and parent.attr == field:
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
    default_safety = "per-finding"
    doc = _doc(
        "Finds `torch.cdist`.",
        "Dynamo fails on `aten._cdist_forward` for every p; legacy exports p=1 but onnxruntime "
        "returns NaN and wrong values (silently wrong, measured).",
        "def forward(self, a, b):\n    return torch.cdist(a, b, p=1)",
        "def forward(self, a, b):\n    return _onnx_cdist(a, b, p=1)",
        "Safe for a literal p=0 (a count) or p=inf (a max): bit-identical. Unsafe otherwise: "
        "ATen's vectorized kernel sums |a - b|^p in another order (and uses a matrix-multiply "
        "formula for p=2 on large inputs), so p=1 and p=2 agree only to float rounding "
        "(measured up to 2.4e-7 on anomalib's PatchCore, tests/realworld/cdist_patchcore.py).",
        keys,
    )

    def is_safe(self, decomposition, node, ctx, method) -> bool:
        return _literal(_argument(node, "p", 2), 2) in (0, float("inf"))

    def cases(self, decomposition, node):
        p = _literal(_argument(node, "p", 2), 2)
        if p in (1, 1.0):
            return ("cdist p=1",)
        if p in (2, 2.0):
            return ("cdist p=2",)
        return decomposition.cases


# Ops whose failure does not depend on their arguments and that have no decomposition, grouped
# by why. Only these are reported by ONX511, and only where the catalog measures them failing
# (an op like torch.narrow fails for one argument form only, so it is not listed).
NO_DECOMPOSITION_REASONS = (
    (("torch.unique", "torch.nonzero", "torch.bincount", "torch.repeat_interleave"),
     "its output size depends on the input values, which a fixed-shape ONNX graph cannot express"),
    (("torch.linalg.eigvals", "torch.linalg.eig", "torch.fft.fft", "torch.fft.fft2", "torch.fft.ifft",
      "torch.fft.rfft", "torch.fft.irfft", "torch.fft.rfftn", "torch.stft", "torch.istft", "torch.view_as_complex",
      "torch.polar", "torch.complex"),
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
    doc = RuleDoc(
        what="Finds calls to torch functions whose export fails whatever their arguments and "
        "that have no faithful decomposition: ops whose output size depends on the data "
        "(`unique`, `nonzero`, `bincount`, `repeat_interleave`), ops with complex "
        "results (`linalg.eigvals`/`eig`, `fft.*`, `stft`/`istft`, `view_as_complex`, `polar`) "
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


class LinalgFactorisation(DecompositionRule):
    code = "ONX512"
    name = "linalg-factorisation"
    summary = ("`cholesky` / `solve_triangular` / `cholesky_solve` / `slogdet` / `qr` / `matrix_exp` / `lstsq` do not "
               "export: rewrite to unrolled factorisations")
    keys = ("linalg_cholesky", "linalg_solve_triangular", "triangular_solve", "cholesky_solve", "linalg_slogdet",
            "linalg_qr", "linalg_matrix_exp", "linalg_lstsq")
    default_safety = "unsafe"
    doc = _doc(
        "Finds `torch.linalg.cholesky`, `torch.cholesky`, `Tensor.cholesky`, "
        "`torch.linalg.solve_triangular`, `torch.triangular_solve`, `Tensor.triangular_solve`, "
        "`torch.cholesky_solve`, `Tensor.cholesky_solve`, "
        "`torch.linalg.slogdet`, `torch.slogdet`, "
        "`Tensor.slogdet`, `torch.linalg.qr`, `torch.linalg.matrix_exp`, `torch.matrix_exp`, "
        "`Tensor.matrix_exp` and `torch.linalg.lstsq` (fix only where `.solution` / `[0]` is used).",
        "ONNX has no factorisation or triangular solver (onnx/onnx#7144): both exporters fail, "
        "legacy with `UnsupportedOperatorError: aten::linalg_cholesky` (`linalg_qr`, "
        "`linalg_slogdet`, ...), dynamo with `No ONNX function found for "
        "aten.linalg_cholesky_ex` (`aten.linalg_qr`, `aten._linalg_slogdet`, ...); dynamo "
        "cannot even capture `lstsq` (data-dependent output shapes). Gaussian-process and "
        "normalizing-flow models need them at inference.",
        "def forward(self, k, y):\n    l = torch.linalg.cholesky(k)\n"
        "    return torch.linalg.solve_triangular(l, y, upper=False)",
        "def forward(self, k, y):\n    l = _onnx_linalg_cholesky(k)\n"
        "    return _onnx_linalg_solve_triangular(l, y, upper=False)",
        "Unsafe: the helpers unroll the textbook algorithms over the (static) matrix size, so "
        "the rounding differs from LAPACK's blocked kernels (differences grow with the condition "
        "number), and inputs torch rejects give NaN/inf instead of an error (cholesky of a "
        "matrix that is not positive definite). QR follows LAPACK's sign convention but "
        "rank-deficient inputs get other columns of Q past the rank; lstsq assumes A has full "
        "rank and is fixed only where `.solution` / `[0]` is read (its other fields depend on "
        "the driver and device); matrix_exp is a Taylor approximant with at most 20 squarings "
        "(||A||_1 <= 2^20). Matrix sizes must be static; batch sizes may be dynamic.",
        keys,
    )

    def visit_Call(self, node, ctx):
        for finding in super().visit_Call(node, ctx):
            if finding.fix is not None and self._other_lstsq_fields(node, ctx):
                finding = dataclasses.replace(finding, fix=None)
            yield finding

    @staticmethod
    def _other_lstsq_fields(node: ast.Call, ctx: FunctionContext) -> bool:
        """A `lstsq` call whose residuals / rank / singular_values may be read."""
        found = match_call(node, ctx)
        return found is not None and found[1].key == "linalg_lstsq" and not reads_only_first_field(node, ctx, "solution")


RULES.append(LinalgFactorisation)


# ---- ONX513 spectral linear algebra (decompositions/registry_spectral.py) ----------------------


class SpectralLinalg(DecompositionRule):
    code = "ONX513"
    name = "spectral-linalg"
    summary = ("`eigh` / `eigvalsh` / `svd` / `svdvals` / `pinv` / `matrix_rank` / `matrix_norm(ord=2, -2, "
               "'nuc')` do not export: rewrite to Jacobi rotations")
    keys = ("linalg_eigh", "linalg_eigvalsh", "linalg_svd", "linalg_svdvals", "linalg_matrix_norm",
            "linalg_pinv", "linalg_matrix_rank")
    default_safety = "unsafe"
    doc = _doc(
        "Finds `torch.linalg.eigh`, `eigvalsh`, `svd`, `svdvals`, `pinv`, `matrix_rank`, and "
        "`torch.linalg.matrix_norm` with `ord=2`, `-2` or `'nuc'` (the orders that need singular "
        "values; the others export).",
        "ONNX has no eigen- or singular value decomposition (onnx/onnx#3839, #5570). Legacy fails "
        "with `aten::linalg_eigh` / `aten::linalg_svd` / `aten::linalg_pinv` or \"Unsupported: "
        "ONNX export of operator linalg.matrix_norm, ord==2\"; dynamo with `aten._linalg_eigh` / "
        "`aten._linalg_svd` / `aten.linalg_pinv`. `torch.linalg.eigvals` / `eig` return complex "
        "tensors, which ONNX runtimes do not carry: they have no fix (ONX511).",
        "def forward(self, x):\n    return torch.linalg.svdvals(x)[..., 0]",
        "def forward(self, x):\n    return _onnx_linalg_svdvals(x)[..., 0]",
        "Unsafe: Jacobi rotations (a fixed number of sweeps, unrolled over the static matrix "
        "size) round differently from LAPACK; eigenvectors and singular vectors are unique only "
        "up to sign (and to a rotation within repeated values) and may come out as the negative of "
        "torch's; pinv and matrix_rank may decide differently for a singular value within "
        "rounding of the tolerance.",
        keys,
    )

    def cases(self, decomposition, node):
        if decomposition.key != "linalg_matrix_norm":
            return decomposition.cases
        value = _literal(_argument(node, "ord", 1), "fro")  # the default 'fro' exports
        if value in (2, 2.0):
            return ("linalg.matrix_norm ord=2",)
        if value in (-2, -2.0):
            return ("linalg.matrix_norm ord=-2",)
        if value == "nuc":
            return ("linalg.matrix_norm nuc",)
        if value is not NOT_LITERAL:
            return ("linalg.matrix_norm fro",)  # 'fro', +-1, +-inf: sums and maxima, exported
        return decomposition.cases  # not a literal: it may be a failing order


RULES.append(SpectralLinalg)


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
            order = _literal(_argument(node, "n", 0))
            exact_order = type(order) is int and order in (0, 1)
            return exact_order and super().is_safe(BY_KEY["digamma"], node, ctx, method)
        return super().is_safe(decomposition, node, ctx, method)


RULES.append(SpecialFunction)


# ---- ONX515-ONX516 structural ops, dynamo's silent bugs (decompositions/registry_structural.py) -
class StructuralOperator(DecompositionRule):
    code = "ONX515"
    name = "structural-operator"
    summary = ("`cov` / `corrcoef` / `index_reduce` / `vander` / `combinations` / `pdist` / `narrow` / `ctc_loss` / "
               "`masked_select` / `unique_consecutive` / `fft.rfftfreq` fail to export: rewrite")
    keys = ("cov", "corrcoef", "index_reduce", "index_reduce_", "vander", "combinations", "pdist", "narrow", "ctc_loss",
            "masked_select", "unique_consecutive", "rfftfreq")
    default_safety = "safe"
    doc = _doc(
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
        keys,
    )

    def visit_Call(self, node, ctx):
        found = match_call(node, ctx)
        if found is None:
            yield from self._report_only(node, ctx)
            return
        if found[1].key == "narrow":
            start = _argument(node, "start", 2, found[2])
            if start is None or ctx.tensors.is_tensor(start) is not True:
                return  # an int start exports; only a tensor start is the failing variant
        yield from super().visit_Call(node, ctx)

    def _report_only(self, node, ctx):
        """Failing variants with no faithful decomposition: reported, never rewritten."""
        qualname = ctx.qualname(node.func)
        if qualname == "torch.nn.functional.one_hot":
            classes = _argument(node, "num_classes", 1, False)
            if classes is not None and _literal(classes) != -1:
                return  # an explicit class count exports
            case, reason = "one_hot num_classes=-1", (
                "the class count (max(x) + 1) is read from the data; pass `num_classes` explicitly")
        elif qualname == "torch.normal":
            mean, std = _argument(node, "mean", 0, False), _argument(node, "std", 1, False)
            size = _argument(node, "size", 2, False)
            if mean is None or ctx.tensors.is_tensor(mean) is False or not _is_number(_literal(std)) or size is not None:
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


RULES.append(StructuralOperator)


class DynamoSilentlyWrong(DecompositionRule):
    code = "ONX516"
    name = "dynamo-silently-wrong"
    summary = "`scatter_reduce(reduce=\"mean\")` and `cross_entropy(label_smoothing=)` export silently wrong in dynamo: rewrite"
    keys = ("scatter_reduce", "scatter_reduce_", "cross_entropy")
    default_safety = "safe"
    doc = _doc(
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
        keys,
    )

    def visit_Call(self, node, ctx):
        found = match_call(node, ctx)
        if found is None or found[1].key not in self.keys:
            return
        if found[1].key in ("scatter_reduce", "scatter_reduce_"):
            reduce = _argument(node, "reduce", 4, found[2])
            if not (isinstance(reduce, ast.Constant) and reduce.value == "mean"):
                return  # other reductions export correctly in dynamo
        else:
            smoothing = _argument(node, "label_smoothing", 7, False)
            if isinstance(smoothing, ast.Constant) and smoothing.value in (0, 0.0):
                return
        yield from super().visit_Call(node, ctx)


RULES.append(DynamoSilentlyWrong)



# ---- ONX517-ONX518 legacy-only failures and silent bugs (decompositions/registry_legacy.py) -----


class LegacyUnsupportedMath(DecompositionRule):
    code = "ONX517"
    name = "legacy-unsupported-math"
    summary = "Elementwise math and reductions the legacy exporter cannot translate: rewrite to exportable ops"
    keys = (
        "logaddexp", "logaddexp2", "logcumsumexp", "nansum", "nanmean", "count_nonzero", "trace", "diff",
        "frac", "heaviside", "signbit", "isneginf", "sgn", "float_power", "ldexp", "sinc", "xlogy",
        "xlog1py", "entr", "ndtr", "erfcx", "log_ndtr", "kron", "vecdot", "dist", "matrix_power", "multi_dot", "quantile", "nanquantile", "trapezoid",
        "cumulative_trapezoid", "renorm", "rms_norm",
    )
    default_safety = "per-finding"
    exporters = (LEGACY,)
    doc = _doc(
        "Finds calls the legacy (TorchScript) exporter has no symbolic for: `logaddexp`, "
        "`logaddexp2`, `logcumsumexp`, `nansum`, `nanmean`, `count_nonzero`, `trace`, `diff`, "
        "`frac`, `heaviside`, `signbit`, `isneginf`, `sgn`, `float_power`, `ldexp`, "
        "`special.sinc`, `special.xlogy`, `special.xlog1py`, `special.entr`, `special.ndtr`, "
        "`special.erfcx`, `special.log_ndtr`, "
        "`kron`, `linalg.vecdot`, `dist`, `linalg.matrix_power`, `linalg.multi_dot`, `quantile`, "
        "`nanquantile`, `trapezoid`, "
        "`cumulative_trapezoid`, `renorm` and `F.rms_norm` (functions and Tensor methods).",
        "The legacy exporter fails with `UnsupportedOperatorError: Exporting the operator "
        "'aten::logaddexp' to ONNX opset version 20 is not supported` (and likewise for each). "
        "Most are one-line compositions in ATen; the helpers repeat ATen's formula with ops "
        "both exporters translate.",
        "def forward(self, a, b):\n    return torch.logaddexp(a, b)",
        "def forward(self, a, b):\n    return _onnx_logaddexp(a, b)",
        "Safe for all but four: the helpers repeat ATen's arithmetic (bit-identical, or within an "
        "ulp where ATen uses vectorised exp/log1p/sin). Unsafe: `signbit` (a NaN with its sign "
        "bit set gives False), `logcumsumexp` (a masked logsumexp instead of ATen's "
        "sequential accumulation: other rounding), `special.erfcx` and `special.log_ndtr` "
        "(a continued-fraction approximation of erfcx; bounds below).",
        keys, legacy_only=True,
    )


RULES.append(LegacyUnsupportedMath)


# Binary operators that are the same ATen op as a decomposed call: `a // b` is floor_divide and
# `a >> b` is bitwise_right_shift when `a` is a tensor.
_OPERATOR_KEYS = {ast.FloorDiv: "floor_divide", ast.RShift: "bitwise_right_shift"}


class LegacySilentlyWrong(DecompositionRule):
    code = "ONX518"
    name = "legacy-silently-wrong"
    summary = "Ops the legacy exporter gets silently wrong (`//`, `>>`, softplus threshold, duplicate indices): rewrite"
    keys = ("floor_divide", "bitwise_right_shift", "softplus", "index_add", "index_put")
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = _doc(
        "Finds `torch.floor_divide` and `a // b`, `torch.bitwise_right_shift` and `a >> b` (the "
        "operators where `a` is known to be a tensor), `F.softplus` with a `threshold` below 20, "
        "`index_put(..., accumulate=True)` and `index_add` (out-of-place forms); reports "
        "`F.embedding(..., max_norm=...)` without a fix (it renormalises the weight in place).",
        "The legacy exporter writes graphs that compute something else, without an error: "
        "floor division and signed right shift become a Div that truncates toward zero (off by "
        "one for negative quotients), softplus loses its threshold, index_put with "
        "accumulate=True keeps one of the duplicate indices instead of summing; index_add with "
        "duplicate indices fails outright. Measured on the legacy exporter: onnxruntime differs "
        "from eager.",
        "def forward(self, x, k):\n    return torch.floor_divide(x, k)",
        "def forward(self, x, k):\n    return _onnx_floor_divide(x, k)",
        "Safe: the helpers compute what eager computes (`div(rounding_mode=\"floor\")` is the same "
        "kernel as floor_divide; the shift and the scatter_add forms are exact for integers; "
        "softplus repeats ATen's formula to an ulp; duplicate-index sums add in index order "
        "like eager). A method call on a value not known to be a tensor is unsafe.",
        keys, legacy_only=True,
    )

    def cases(self, decomposition, node):
        if decomposition.key != "softplus":
            return decomposition.cases
        threshold = _literal(_argument(node, "threshold", 2), 20)
        if _is_number(threshold) and threshold >= 20:
            return ("softplus beta default threshold",)  # measured OK in both exporters
        return decomposition.cases

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        yield from super().visit_Call(node, ctx)
        if ctx.qualname(node.func) != "torch.nn.functional.embedding":
            return
        if _literal(_argument(node, "max_norm", 3)) is None:
            return
        failed = catalog.failures(("embedding max_norm",))
        if failed:
            message = (
                f"`F.embedding(..., max_norm=...)` breaks ONNX export ({catalog.describe(failed)}; measured "
                f"on torch {catalog.torch_version()}); no fix: eager renormalises the weight rows in place, "
                "which an exportable rewrite cannot repeat. Renormalise the weight once before export "
                "and drop max_norm"
            )
            yield ctx.report(self, node, message, exporters=tuple(sorted(failed)))

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        key = _OPERATOR_KEYS.get(type(node.op))
        if key is None or ctx.tensors.is_tensor(node.left) is not True:
            return
        decomposition = BY_KEY[key]
        failed = catalog.failures(decomposition.cases)
        if not failed:
            return
        helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(key))
        call = f"{decomposition.helper}({ctx.segment(node.left)}, {ctx.segment(node.right)})"
        fix = Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), True, imports=("torch",), helpers=helpers)
        symbol = "//" if key == "floor_divide" else ">>"
        message = (
            f"`{symbol}` on a tensor is `{decomposition.targets[0]}`, which breaks ONNX export "
            f"({catalog.describe(failed)}; measured on torch {catalog.torch_version()}); "
            f"`{decomposition.helper}` computes it with exportable ops"
        )
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))


RULES.append(LegacySilentlyWrong)


# ---- ONX519 legacy-only structural ops (decompositions/registry_legacy_structural.py) ----


class LegacyStructural(DecompositionRule):
    code = "ONX519"
    name = "legacy-unsupported-structural"
    summary = "Pooling, resampling, indexing and layout ops the legacy exporter refuses: rewrite"
    keys = ("adaptive_avg_pool2d", "adaptive_avg_pool1d", "interpolate", "conv1d", "take_along_dim",
            "diag_embed", "diag", "block_diag", "cartesian_prod", "rot90", "msort", "isin", "fftshift",
            "histc", "bitwise_or", "bitwise_xor", "bitwise_not")
    exporters = (LEGACY,)  # dynamo exports every one of them
    default_safety = "safe"
    doc = _doc(
        "Finds, when the project targets the legacy exporter: `F.adaptive_avg_pool2d` / "
        "`F.adaptive_avg_pool1d` with an output size other than 1 (the legacy exporter fails "
        "when the output size does not divide the input size, which static analysis cannot "
        "see); `F.interpolate(mode=\"area\")`, `F.interpolate(mode=\"nearest-exact\")` and "
        "`F.interpolate(mode=\"bilinear\"/\"bicubic\", antialias=True)`; "
        "`F.conv1d(padding=\"same\")` with a dilation other than 1; `torch.take_along_dim`, "
        "`torch.diag`, `torch.diag_embed`, `torch.block_diag`, `torch.cartesian_prod`, "
        "`torch.rot90`, `torch.msort`, `torch.isin`, `torch.fft.fftshift`, `torch.histc` and "
        "`torch.bitwise_or` / `bitwise_xor` / `bitwise_not` (function and method calls; the "
        "operators `|`, `^`, `~` are not reported: their operands may be bool masks, which export). "
        "(`nn.AdaptiveAvgPool2d`, `nn.Upsample`, `nn.Conv1d` modules are decomposed by "
        "`onnxfix export --decompose`.)",
        "The dynamo exporter exports these; the legacy (TorchScript) exporter fails: adaptive "
        "average pooling and area interpolation with \"output size that are not factor of input "
        "size\", nearest-exact and the structural ops with no symbolic (`aten::take_along_dim`, "
        "`aten::diag`, `aten::rot90`, `aten::isin`, `aten::fft_fftshift`, ...), and "
        "conv1d(padding='same', dilation=2) exports a Conv with auto_pad=SAME_UPPER that "
        "onnxruntime refuses (\"Dilation not supported for AutoPadType::SAME_UPPER\"). Reported "
        "only when `[tool.onnxfix] exporters` includes \"legacy\".",
        "def forward(self, x):\n    return F.adaptive_avg_pool2d(x, (3, 3))",
        "def forward(self, x):\n    return _onnx_adaptive_avg_pool2d(x, (3, 3))",
        "Safe: the same bins and means (to float rounding) for adaptive pooling and area "
        "interpolation, the same source indices as torch's kernel for nearest-exact (2-D inputs; "
        "1-D inputs run torch's interpolate unchanged), the same zero padding for conv1d, and "
        "the same values (bit-identical) for the indexing and layout ops. Unsafe for "
        "antialias=True: the same filter weights computed in float64 where torch's kernel uses "
        "float32, so results differ in the last digits (bound below). Sizes the helpers unroll "
        "over (pooling and resampling sizes, the diagonal length) must be static at export time.",
        keys, legacy_only=True,
    )

    def cases(self, decomposition, node):
        key = decomposition.key
        if key in ("adaptive_avg_pool2d", "adaptive_avg_pool1d"):
            size = _literal(_argument(node, "output_size", 1))
            sizes = size if isinstance(size, (tuple, list)) else (size,)
            if all(s in (1, None) for s in sizes):
                return ()  # 1 (global pooling) or None (keep) divides every input size
            return decomposition.cases
        if key == "interpolate":
            mode = _literal(_argument(node, "mode", 3), "nearest")
            if _antialiased(node):
                if _literal(_argument(node, "align_corners", 4)) is True:
                    return ()  # not decomposed
                return {"bilinear": ("interpolate bilinear antialias",),
                        "bicubic": ("interpolate bicubic antialias",)}.get(mode, ())
            return {"area": ("interpolate area down",), "nearest-exact": ("interpolate nearest-exact",)}.get(mode, ())
        if key == "conv1d":
            padding, dilation = _literal(_argument(node, "padding", 4)), _literal(_argument(node, "dilation", 5), 1)
            return decomposition.cases if padding == "same" and dilation not in (1, (1,), [1]) else ()
        return decomposition.cases


    def is_safe(self, decomposition, node, ctx, method):
        if decomposition.key == "interpolate" and _antialiased(node):
            return False  # float64 weights where torch uses float32: see the documented bound
        return super().is_safe(decomposition, node, ctx, method)


def _antialiased(node: ast.Call) -> bool:
    return _literal(_argument(node, "antialias", 6)) is True


RULES.append(LegacyStructural)
