"""ONX517-ONX519: what only the legacy exporter fails on or gets silently wrong
(decompositions/registry_legacy.py, registry_legacy_structural.py)."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.config import LEGACY
from onnxfix.decompositions import BY_KEY, helper_chain, helper_source
from onnxfix.patterns.operators.base import (
    NOT_LITERAL,
    DecompositionRule,
    global_pooling,
    argument,
    is_number,
    literal,
    rule_doc,
)
from onnxfix.patterns.operators.embedding_weights import TIED_MESSAGE, weight_read_elsewhere
from onnxfix.patterns.views.chains import SPLIT_METHODS, view_chain
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.int_dtype import is_integer_tensor
from onnxfix.rewriter.precedence import BINARY, precedence
from onnxfix.rewriter.rule import Edit, Fix, Helper
from onnxfix.rewriter.tree_walk import walk


class LegacyUnsupportedMath(DecompositionRule):
    code = "ONX517"
    name = "legacy-unsupported-math"
    summary = "Elementwise math and reductions the legacy exporter cannot translate: rewrite to exportable ops"
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = rule_doc(
        "Finds calls the legacy (TorchScript) exporter has no symbolic for: `logaddexp`, "
        "`logaddexp2`, `logcumsumexp`, `nansum`, `nanmean`, `count_nonzero`, `trace`, `diff`, "
        "`frac`, `heaviside`, `signbit`, `isneginf`, `sgn`, `float_power`, `ldexp`, "
        "`special.sinc`, `special.xlogy`, `special.xlog1py`, `special.entr`, `special.ndtr`, "
        "`special.erfcx`, `special.log_ndtr`, "
        "`kron`, `linalg.vecdot`, `dist`, `linalg.matrix_power`, `linalg.multi_dot`, `quantile`, "
        "`nanquantile`, `trapezoid`, "
        "`cumulative_trapezoid`, `renorm`, `F.rms_norm`, and the elementwise `trunc`/`fix`, "
        "`expm1`, `exp2`, `sinh`, `cosh`, `asinh`, `acosh`, `atanh` (and their `arc` aliases), "
        "`erfc`, `deg2rad`, `rad2deg`, `addcdiv`, `F.threshold` with a non-zero threshold, the "
        "composites `inner`, `vdot`, `addmv`, `addr`, `isclose`, `isposinf`, and the losses "
        "`F.l1_loss`, `smooth_l1_loss`, `huber_loss`, `binary_cross_entropy`, "
        "`margin_ranking_loss`, `cosine_embedding_loss`, `triplet_margin_loss`, "
        "`soft_margin_loss`, `hinge_embedding_loss`, `poisson_nll_loss` (functions and Tensor "
        "methods; the op_db probe shows every one failing for every argument pattern).",
        "The legacy exporter fails with `UnsupportedOperatorError: Exporting the operator "
        "'aten::logaddexp' to ONNX opset version 20 is not supported` (and likewise for each). "
        "Most are one-line compositions in ATen; the helpers repeat ATen's formula with ops "
        "both exporters translate.",
        "def forward(self, a, b):\n    return torch.logaddexp(a, b)",
        "def forward(self, a, b):\n    return _onnx_logaddexp(a, b)",
        "Safe: the helpers that run in eager are bit-identical by construction on every CPU "
        "kernel path: exact ops (count_nonzero, frac, heaviside, isneginf) or the "
        "very ATen ops the torch op runs, in its order (diff, ldexp, kron, vecdot, matrix_power, "
        "multi_dot, quantile, nanquantile, trapezoid, cumulative_trapezoid). The others "
        "(logaddexp, logaddexp2, nansum, nanmean, sgn, float_power, trace, sinc, xlogy, xlog1py, "
        "entr, special.ndtr, dist, renorm, rms_norm, the hyperbolic functions, expm1, exp2, erfc, "
        "deg2rad, rad2deg, addcdiv, threshold, trunc, and `signbit`, `logcumsumexp`, "
        "`special.erfcx`, `special.log_ndtr`) compose other floating ops than ATen's kernels, "
        "which round differently on the default, AVX2 and AVX-512 paths, so they return the "
        "torch op itself outside export (`torch.onnx.is_in_onnx_export()`, False in eager): eager "
        "outputs are bit-identical. Exported, those are within an ulp where ATen uses vectorised "
        "exp/log1p/sin, except `signbit` (a NaN with its sign bit set gives False), "
        "`logcumsumexp` (a masked logsumexp: other rounding), `special.erfcx` and "
        "`special.log_ndtr` (a continued-fraction approximation of erfcx; bounds below). A "
        "method call on a value not known to be a tensor is unsafe.",
        code, legacy_only=True,
    )


# Binary operators that are the same ATen op as a decomposed call: `a // b` is floor_divide and
# `a >> b` is bitwise_right_shift when `a` is a tensor.
_OPERATOR_KEYS = {ast.FloorDiv: "floor_divide", ast.RShift: "bitwise_right_shift"}
# `|` and `^` on integer tensors (ONX519's): the legacy exporter translates them for bool only
_INTEGER_OPERATORS = {ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor"}
# Augmented assignments on a tensor, the in-place operator methods (legacy has no symbolic for
# any of them, measured): `x ^= y` -> `x.copy_(_onnx_bitwise_xor(x, y))`, the same tensor updated.
_AUGMENTED = {ast.FloorDiv: ("floor_divide", "//=", "__ifloordiv__ int64"),
              ast.RShift: ("bitwise_right_shift", ">>=", "__irshift__ int64"),
              ast.BitXor: ("bitwise_xor", "^=", "__ixor__ int64"),
              ast.BitOr: ("bitwise_or", "|=", "__ior__ int64"),
              # the legacy exporter translates `&` (bool and integer), not the in-place `__iand_`
              ast.BitAnd: (None, "&=", "__iand__ bool")}


def operator_finding(rule: DecompositionRule, node: ast.BinOp, ctx: FunctionContext, key: str, described: str):
    """`a OP b` -> the helper of decomposition ``key`` (exact), where the catalog measured the op failing."""
    decomposition = BY_KEY[key]
    failed = catalog.failures(decomposition.catalog_cases)
    if not failed:
        return
    helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(key))
    call = f"{decomposition.helper}({ctx.segment(node.left)}, {ctx.segment(node.right)})"
    fix = Fix(f"Rewrite to `{call}`", (ctx.replace(node, call),), True, imports=("torch",), helpers=helpers)
    message = (f"{described} is `{decomposition.targets[0]}`, which breaks ONNX export ({catalog.describe(failed)}; "
               f"measured on torch {catalog.torch_version()}); `{decomposition.helper}` computes it with exportable ops")
    yield ctx.report(rule, node, message, fix=fix, exporters=tuple(sorted(failed)))


def augmented_finding(rule: DecompositionRule, node: ast.AugAssign, ctx: FunctionContext):
    """`x ^= y` on a tensor `x` (a name or attribute: the fix reads it twice): written back with
    `copy_`, so the tensor is updated in place as the operator did."""
    entry = _AUGMENTED.get(type(node.op))
    if entry is None or not isinstance(node.target, (ast.Name, ast.Attribute)):
        return
    if not (entry[0] in rule.keys if entry[0] is not None else rule.code == LegacyStructural.code):
        return  # another rule's operator (ONX518 takes `//=` and `>>=`; helper-less ones are ONX519's)
    known = ctx.tensors.is_tensor(node.target)
    if known is False or (known is None and entry[0] is not None):
        return
    key, symbol, case = entry
    failed = catalog.failures((case,))
    if not failed:
        return
    if _may_be_view(node.target, ctx):
        message = (f"`{symbol}` on a tensor is `{case.split()[0]}`, which breaks ONNX export ({catalog.describe(failed)}; "
                   f"measured on torch {catalog.torch_version()}); no fix: `{ctx.segment(node.target)}` may be a view "
                   "of another tensor, and the legacy exporter drops a `copy_` written through a view (silently wrong)")
        yield ctx.report(rule, node, message, exporters=tuple(sorted(failed)))
        return
    target = ctx.segment(node.target)
    source = ctx.file.source
    start, value_start, end = source.span(node)[0], source.span(node.value)[0], source.span(node)[1]
    value_end = source.span(node.value)[1]
    if key is None:  # the out-of-place operator exports: `x.copy_(x & (y))`
        yield from _operator_written_back(rule, node, ctx, symbol, case, failed, target,
                                          (start, value_start, value_end, end), safe=known is True)
        return
    helper = BY_KEY[key].helper
    edits = (Edit(start, value_start, f"{target}.copy_({helper}({target}, "), Edit(value_end, end, "))"))
    helpers = tuple(Helper(f"_onnx_{k}", helper_source(k)) for k in helper_chain(key))
    # `t //= y` with a float `y` on an integer `t` raises in eager (the result cannot be cast back);
    # `t.copy_(...)` would cast it: exact only where the divisor / shift is an int literal
    literal_int = isinstance(node.value, ast.Constant) and type(node.value.value) is int
    safe = key in ("bitwise_xor", "bitwise_or") or literal_int
    fix = Fix(f"Rewrite to `{target}.copy_({helper}({target}, ...))`", edits, safe, imports=("torch",), helpers=helpers)
    message = (f"`{symbol}` on a tensor is `{case.split()[0]}`, which breaks ONNX export ({catalog.describe(failed)}; "
               f"measured on torch {catalog.torch_version()}); `{helper}` computes it with exportable ops, "
               "written back with `copy_`")
    yield ctx.report(rule, node, message, fix=fix, exporters=tuple(sorted(failed)))


def _may_be_view(target: ast.expr, ctx: FunctionContext) -> bool:
    """A name that may share storage with another tensor: bound to a view (views/chains.py's
    view_chain: a basic index, a view method or attribute), to another name, or by a binding
    the rule cannot read (unpacking, a loop target). Writing into it in place writes into a
    tensor the fix cannot see. (A parameter is written into as the graph's own value: measured,
    Gray-code decoding `gray ^= gray >> s` on the input exports right.) Conservative where
    named_view, which proves a view, would answer "unknown"."""
    if not isinstance(target, ast.Name):
        return False  # `self.state`: the module's own tensor
    for value in ctx.assignments(target.id):
        if isinstance(value, ast.AugAssign):
            continue  # `x ^= y` itself: in place, x stays the tensor it was
        if not isinstance(value, ast.expr) or isinstance(value, (ast.Name, ast.Starred)):
            return True
        if view_chain(value, ctx) is not None or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SPLIT_METHODS):
            return True
    return False


def _operator_written_back(rule, node, ctx, symbol, case, failed, target, spans, safe):
    """`mask &= other` -> `mask.copy_(mask & (other))`: the same values written into the same
    tensor (a view's base sees them, as with the in-place operator). Safe where `mask` is known
    to be a tensor (`&` is the kernel `&=` runs, out of place); unsafe where it may be a Python
    bool (no `copy_`)."""
    start, value_start, value_end, end = spans
    operator = symbol[:-1]
    bracket = precedence(node.value) <= BINARY[type(node.op)]  # `m &= a | b` is `m & (a | b)`
    opener, closer = ("(", "))") if bracket else ("", ")")
    edits = (Edit(start, value_start, f"{target}.copy_({target} {operator} {opener}"), Edit(value_end, end, closer))
    fix = Fix(f"Rewrite to `{target}.copy_({target} {operator} (...))`", edits, safe)
    message = (f"`{symbol}` on a tensor is `{case.split()[0]}`, which breaks ONNX export ({catalog.describe(failed)}; "
               f"measured on torch {catalog.torch_version()}); the operator `{operator}` exports, written back "
               "with `copy_`")
    yield ctx.report(rule, node, message, fix=fix, exporters=tuple(sorted(failed)))


class LegacySilentlyWrong(DecompositionRule):
    code = "ONX518"
    name = "legacy-silently-wrong"
    summary = ("Ops the legacy exporter gets silently wrong (`//`, `>>`, softplus threshold, duplicate indices, "
               "embedding max_norm): rewrite")
    extra_triggers = ("//", ">>")  # the operators (and `//=`, `>>=`)
    default_safety = "safe"
    exporters = (LEGACY,)
    doc = rule_doc(
        "Finds `torch.floor_divide` and `a // b`, `torch.bitwise_right_shift` and `a >> b` (the "
        "operators where `a` is known to be a tensor; also `a //= b` and `a >>= b`, written back "
        "with `copy_`), `F.softplus` with a `threshold` below 20, "
        "`index_put(..., accumulate=True)` and `index_add` (out-of-place forms), and "
        "`F.embedding(..., max_norm=...)` (also `nn.Embedding(..., max_norm=...)`'s call).",
        "The legacy exporter writes graphs that compute something else, without an error: "
        "floor division and signed right shift become a Div that truncates toward zero (off by "
        "one for negative quotients), softplus loses its threshold, index_put with "
        "accumulate=True keeps one of the duplicate indices instead of summing; index_add with "
        "duplicate indices fails outright; an embedding with max_norm drops the renormalisation "
        "eager applies to the looked-up rows (pytorch#72738). Measured on the legacy exporter: "
        "onnxruntime differs from eager.",
        "def forward(self, x, k):\n    return torch.floor_divide(x, k)",
        "def forward(self, x, k):\n    return _onnx_floor_divide(x, k)",
        "Safe: floor_divide's helper is `div(rounding_mode=\"floor\")`, the same ATen kernel, and "
        "the shift is exact integer arithmetic; softplus, index_add and index_put return the "
        "torch op itself outside export (`torch.onnx.is_in_onnx_export()`, False in eager: "
        "scatter_add is another accumulation kernel than index_add / index_put; the embedding's "
        "helper calls F.embedding, which writes the renormalised rows into the weight as before), and exported "
        "softplus repeats ATen's formula to an ulp and the scatter_add forms add duplicates in "
        "index order. A method call on a value not known to be a tensor is unsafe.",
        code, legacy_only=True,
    )

    def cases(self, decomposition, node, ctx):
        if decomposition.key != "softplus":
            return decomposition.catalog_cases
        threshold = literal(argument(node, "threshold", 2), 20)
        if is_number(threshold) and threshold >= 20:
            return ("softplus beta default threshold",)  # measured OK in both exporters
        return decomposition.catalog_cases

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        for finding in super().visit_Call(node, ctx):
            writes_embedding = finding.fix is not None and any(h.name == "_onnx_embedding" for h in finding.fix.helpers)
            if writes_embedding and weight_read_elsewhere(node, ctx):
                # the tied weight's other reads see eager's renormalised rows: report only
                finding.fix = None
                finding.message = finding.message.split("; `_onnx_embedding`")[0] + "; " + TIED_MESSAGE
            yield finding

    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        yield from augmented_finding(self, node, ctx)

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        key = _OPERATOR_KEYS.get(type(node.op))
        if key is None or ctx.tensors.is_tensor(node.left) is not True:
            return
        yield from operator_finding(self, node, ctx, key, f"`{'//' if key == 'floor_divide' else '>>'}` on a tensor")


class LegacyStructural(DecompositionRule):
    code = "ONX519"
    name = "legacy-unsupported-structural"
    summary = "Pooling, resampling, indexing and layout ops the legacy exporter refuses: rewrite"
    extra_triggers = ("^", "|", "&=")  # xor / or on integer tensors, in place or not; in-place and
    exporters = (LEGACY,)  # dynamo exports every one of them
    default_safety = "safe"
    doc = rule_doc(
        "Finds, when the project targets the legacy exporter: `F.adaptive_avg_pool2d` / "
        "`F.adaptive_avg_pool1d` with an output size other than 1 (the legacy exporter fails "
        "when the output size does not divide the input size, which static analysis cannot "
        "see); `F.interpolate(mode=\"area\")`, `F.interpolate(mode=\"nearest-exact\")` and "
        "`F.interpolate(mode=\"bilinear\"/\"bicubic\", antialias=True)`; "
        "`F.conv1d(padding=\"same\")` with a dilation other than 1; `F.bilinear` / `nn.Bilinear`; "
        "`F.layer_norm` whose normalized_shape is read from a tensor (`x.shape[-1:]`); "
        "`F.batch_norm` on the batch's statistics with no running ones (training=True, running_mean and "
        "running_var None: timm's NFNet, detectron2's BatchNormBatchStat; the legacy exporter needs the batch "
        "size as a constant); "
        "`F.instance_norm` with running statistics (use_input_stats=False; `nn.InstanceNorm2d(..., "
        "track_running_stats=True)` layers in eval are repaired by `onnxfix export`); "
        "`torch.fliplr`, `flipud`, `ravel`, `positive`, `column_stack`, `dstack`, `hsplit`, "
        "`F.channel_shuffle` / `nn.ChannelShuffle`, "
        "`vsplit`, `diagflat`, `torch.take_along_dim`, "
        "`torch.diag`, `torch.diag_embed`, `torch.block_diag`, `torch.cartesian_prod`, "
        "`torch.rot90`, `torch.msort`, `torch.isin`, `torch.fft.fftshift`, `torch.histc`, "
        "`Tensor.unfold` and `F.fold` (the legacy exporter translates these two only for static "
        "sizes: reported whenever the project targets legacy, since a size read from the input "
        "is invisible statically), `torch.unflatten` / `Tensor.unflatten` (reported whenever the project "
        "targets legacy for the same reason), `F.max_unpool2d` / `F.max_unpool1d`, `F.embedding_bag` with "
        "a padding_idx, `F.scaled_dot_product_attention(..., enable_gqa=True)`, and "
        "`torch.bitwise_or` / `bitwise_xor` / `bitwise_not` (function and method calls; the "
        "operators `|` and `^` where an operand is known to be an integer tensor: a typed "
        "constructor, an integer dtype or cast, or a recorded run; otherwise they are not "
        "reported, nor is `~`: their operands may be bool masks, which export; "
        "the in-place `x ^= y` / `x |= y` / `x &= y` on a tensor are, for every dtype: legacy has "
        "no symbolic for `__ixor_` / `__ior_` / `__iand_`, and the fix writes the helper's (for "
        "`&=`, the operator's) result back with `copy_`; no fix where `x` may be a view of "
        "another tensor, a slice or a parameter: the legacy exporter drops a `copy_` through a "
        "view). "
        "The torch.nn layers whose forward is one of these calls are matched too "
        "(`nn.AdaptiveAvgPool2d`, `nn.AdaptiveAvgPool1d`, `nn.Upsample`, `nn.Fold`, `nn.Unflatten`, and layers whose "
        "forward takes more arguments: `nn.MaxUnpool2d()(x, indices)`, `nn.EmbeddingBag(..., "
        "padding_idx=0)(ids, offsets)`; the table is read from "
        "torch's own source): `self.pool(x)` where `__init__` assigned the layer, judged on its "
        "constructor's arguments, and under `onnxfix export --fix` a module the recorded run saw "
        "in a local (`for pool in self.pools: pool(x)`); the fix reads the layer's attributes "
        "(`_onnx_adaptive_avg_pool2d(x, pool.output_size)`). `nn.Conv1d` layers are decomposed by "
        "`onnxfix export --decompose`.",
        "The dynamo exporter exports these; the legacy (TorchScript) exporter fails: adaptive "
        "average pooling and area interpolation with \"output size that are not factor of input "
        "size\", nearest-exact and the structural ops with no symbolic (`aten::take_along_dim`, "
        "`aten::diag`, `aten::rot90`, `aten::isin`, `aten::fft_fftshift`, ...), and "
        "conv1d(padding='same', dilation=2) exports a Conv with auto_pad=SAME_UPPER that "
        "onnxruntime refuses (\"Dilation not supported for AutoPadType::SAME_UPPER\"). `unflatten` "
        "exports, but its result keeps the traced shape: a size read from it later is a constant, and "
        "onnxruntime fails in a later Reshape at another input size (Video Depth Anything's frames, "
        "Flux's attention heads). Reported "
        "only when `[tool.onnxfix] exporters` includes \"legacy\".",
        "def forward(self, x):\n    return F.adaptive_avg_pool2d(x, (3, 3))",
        "def forward(self, x):\n    return _onnx_adaptive_avg_pool2d(x, (3, 3))",
        "Safe: the indexing and layout ops are exact (bit-identical by construction); the "
        "pooling, interpolate, conv1d and histc helpers return the torch op itself outside export "
        "(`torch.onnx.is_in_onnx_export()`, False in eager), bit-identical. Exported: the same "
        "bins and means (to float rounding) for adaptive pooling and area interpolation, the "
        "same source indices as torch's kernel for nearest-exact (2-D inputs; 1-D inputs run "
        "torch's interpolate unchanged), the same zero padding for conv1d, and for "
        "antialias=True the same filter weights computed in float64 where torch's kernel uses "
        "float32 (results differ in the last digits, bound below); unflatten as the view of the spliced "
        "shape that ATen's unflatten is, bit-identical. Sizes the helpers unroll "
        "over (pooling and resampling sizes, the diagonal length) must be static at export time.",
        code, legacy_only=True,
    )

    def visit_AugAssign(self, node: ast.AugAssign, ctx: FunctionContext):
        yield from augmented_finding(self, node, ctx)

    def visit_BinOp(self, node: ast.BinOp, ctx: FunctionContext):
        """`a | b`, `a ^ b` with an operand known to be an integer tensor (bool masks export)."""
        key = _INTEGER_OPERATORS.get(type(node.op))
        if key is None or not (is_integer_tensor(node.left, ctx) or is_integer_tensor(node.right, ctx)):
            return
        if ctx.tensors.is_tensor(node.left) is False and ctx.tensors.is_tensor(node.right) is False:
            return
        yield from operator_finding(self, node, ctx, key, f"`{'|' if key == 'bitwise_or' else '^'}` on an integer tensor")

    def cases(self, decomposition, node, ctx):
        key = decomposition.key
        if key in ("adaptive_avg_pool2d", "adaptive_avg_pool1d"):
            return () if global_pooling(node) else decomposition.catalog_cases
        if key == "interpolate":
            mode = literal(argument(node, "mode", 3), "nearest")
            if _antialiased(node):
                # align_corners=True: dynamo's Resize computes other weights (silently wrong)
                corners = " align_corners" if literal(argument(node, "align_corners", 4)) is True else ""
                return {"bilinear": (f"interpolate bilinear antialias{corners}",),
                        "bicubic": (f"interpolate bicubic antialias{corners}",)}.get(mode, ())
            return {"area": ("interpolate area down",), "nearest-exact": ("interpolate nearest-exact",)}.get(mode, ())
        if key == "fold" and literal(argument(node, "output_size", 1)) is not NOT_LITERAL:
            return ()  # a literal output size fixes the block count: the legacy exporter takes it
        if key == "layer_norm" and not _shape_read_from_a_tensor(argument(node, "normalized_shape", 1), ctx):
            return ()  # literal or the module's own shape: constants the legacy exporter takes
        if key == "instance_norm" and literal(argument(node, "use_input_stats", 5), True) is True:
            return ()  # the input's own statistics: legacy's InstanceNormalization
        if key == "conv1d":
            padding, dilation = literal(argument(node, "padding", 4)), literal(argument(node, "dilation", 5), 1)
            return decomposition.catalog_cases if padding == "same" and dilation not in (1, (1,), [1]) else ()
        return decomposition.catalog_cases


def _shape_read_from_a_tensor(shape: ast.expr | None, ctx: FunctionContext) -> bool:
    """`x.shape[-1:]`, `(x.size(-1),)`, `[H, W]` with names bound to sizes or parameters the
    callers pass sizes (UCM-Net's `F.layer_norm(x, [H, W])`): a shape read from a tensor while tracing."""
    return shape is not None and any(
        isinstance(n, ast.Attribute) and n.attr == "shape"
        or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "size"
        or isinstance(n, ast.Name) and (ctx.sizes.is_size(n) or ctx.sizes.passed_a_size(n))
        for n in walk(shape))


def _antialiased(node: ast.Call) -> bool:
    return literal(argument(node, "antialias", 6)) is True


RULES = [LegacyUnsupportedMath, LegacySilentlyWrong, LegacyStructural]
