"""Export-time repairs of ops whose translation computes other values than eager for some inputs,
keyed on the first value that differs (exporter/divergence.py names the node): a fully masked
attention row, NaN in a max reduction or pooling window. Neither exporter fails on them, so no
error names them; the source shows nothing either (the values decide)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof, call_argument


def near_identity(value) -> bool:
    """A float onnxscript's no-op rules take for the 0 of an add (within 1e-8) or the 1 of a product
    (within a relative 1e-5), and is not exactly that (the node is then a true no-op)."""
    if not isinstance(value, float) or value in (0.0, 1.0):
        return False
    return abs(value) <= 1e-8 or abs(value - 1.0) <= 1e-5 * max(abs(value), 1.0)

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "sdpa_masked_rows", ("torch.nn.functional.scaled_dot_product_attention",), True, (),
        ("https://github.com/microsoft/onnxscript/pull/2479",),
        "Attention with a mask that leaves a query row nothing to attend to (a padding token): ATen "
        "gives that row zeros, the dynamo exporter's translation an average of the values (or NaN). "
        "Under torch.export the attention is written out as ATen's math path computes it (scores plus "
        "the mask, softmax, rows whose scores are all -inf zeroed). Export time only, keyed on the "
        "attention being the first value that differs from eager. Eager and legacy keep the op.",
        static=False, rule="ONX515", repairs_divergence=r"node_scaled_dot_product_attention",
        site_applies=lambda args, kwargs: call_argument(args, kwargs, 3, "attn_mask") is not None,
        proof=Proof("torch.nn.functional.scaled_dot_product_attention(a, c, c, attn_mask=m)",
                    "_onnx_sdpa_masked_rows(a, c, c, attn_mask=m)",
                    "(randn(g, b, 2, 5, 8), randn(g, b, 2, 6, 8), "
                    "(ints(g, 0, 4, b, 2, 5, 6) > 0) & (torch.arange(5) > 0).view(5, 1))",
                    params="a, c, m", decomposition_tol=1e-5),
    ),
    Decomposition(
        "nan_propagating_max", ("torch.amax", "Tensor.amax", "torch.amin", "Tensor.amin", "torch.max", "Tensor.max",
                                "torch.min", "Tensor.min", "torch.nn.functional.max_pool1d",
                                "torch.nn.functional.max_pool2d", "torch.nn.functional.max_pool3d"), True, (),
        ("https://github.com/microsoft/onnxruntime/issues/10514", "https://github.com/microsoft/onnxruntime/issues/24819"),
        "A max or min reduction, or a max pooling, over values holding NaN: ATen gives NaN wherever the "
        "reduced values (the window) hold one, onnxruntime's ReduceMax / ReduceMin / MaxPool skip it. While "
        "exporting, the op, then NaN where the same reduction of the input's NaN mask is set (exact). "
        "(values, indices) results and elementwise maxima of two tensors are left as the op gives them. "
        "Export time only, keyed on such a node being the first value that differs from eager. Eager "
        "keeps the op.",
        static=False, wraps_op=True, rule="ONX515", repairs_divergence=r"^(ReduceMax|ReduceMin|MaxPool) ",
        proof=Proof("torch.amax(a, dim=1) + torch.nn.functional.max_pool1d(a.unsqueeze(1), 2).sum(-1).squeeze(1)"
                    " + a.amin(dim=1) + a[:, 2:].min(dim=1).values",
                    "_onnx_nan_propagating_max(torch.amax, a, dim=1) + _onnx_nan_propagating_max("
                    "torch.nn.functional.max_pool1d, a.unsqueeze(1), 2).sum(-1).squeeze(1)"
                    " + _onnx_nan_propagating_max(torch.Tensor.amin, a, dim=1) + a[:, 2:].min(dim=1).values",
                    "(randn_with_nan(g, b, 6),)", params="a"),
    ),
    Decomposition(
        "index_keepdim", ("torch.argmax", "Tensor.argmax", "torch.argmin", "Tensor.argmin"), True, (),
        ("https://github.com/llvm/torch-mlir/issues/3514",),
        "An argmax or argmin with keepdim=True and no dim (`score.argmax(keepdim=True)`, the global peak of a "
        "map): ATen gives the flattened input's index in a tensor of the input's rank with every size 1; "
        "the dynamo exporter's translation keeps one dim ([1] for a 2-D map), which silently reshapes what "
        "follows. While exporting, the index into the flattened input reshaped to that rank (ATen's own "
        "computation). Export time only, keyed on an ArgMax / ArgMin being the first value that differs from "
        "eager. Eager keeps the op.",
        static=False, wraps_op=True, rule="ONX515", repairs_divergence=r"^(ArgMax|ArgMin) ",
        proof=Proof("torch.argmax(a, keepdim=True) * 10 + a.argmin(keepdim=True)",
                    "_onnx_index_keepdim(torch.argmax, a, keepdim=True) * 10 + _onnx_index_keepdim("
                    "torch.Tensor.argmin, a, keepdim=True)",
                    "(randn(g, b, 6),)", params="a"),
    ),
    Decomposition(
        "div_rounded", ("torch.div", "Tensor.div", "torch.divide", "Tensor.divide"), True, (),
        ("https://github.com/microsoft/onnxscript/issues/989", "https://github.com/microsoft/onnxscript/issues/990"),
        "torch.div with rounding_mode=\"floor\" or \"trunc\" on floats: both exporters write a floor of the "
        "plain quotient (1 too high where it rounds onto a whole number: 0.7 / 0.1 floored is 6 in ATen, "
        "which divides the numerator less its fmod remainder) and truncate a half-precision quotient before "
        "rounding it to half (ATen rounds first: 1 lower at a half rounding boundary). While exporting, ATen's "
        "arithmetic (the floor as floor_divide's helper computes it, the quotient truncated in its own dtype). "
        "Export time only, keyed on the division being the first value that differs from eager (values "
        "decide; integer divisions are exact and keep the op). Eager keeps the op.",
        static=False, rule="ONX515", requires=("floor_divide",), aten=("div",),
        site_applies=lambda args, kwargs: kwargs.get("rounding_mode") in ("floor", "trunc"),
        proof=Proof("torch.div(a, c, rounding_mode='floor') + torch.div(a.half(), c.half(), rounding_mode='trunc').float()",
                    "_onnx_div_rounded(a, c, rounding_mode='floor') + _onnx_div_rounded(a.half(), c.half(), "
                    "rounding_mode='trunc').float()",
                    "(ints(g, -400, 400, b, 8) * 0.1, ints(g, 1, 6, b, 8) * 0.1)", params="a, c"),
    ),
    Decomposition(
        "weight_norm_1d", ("torch._weight_norm",), True, (),
        ("https://github.com/pytorch/pytorch/pull/191749",),
        "weight_norm of a 1-D weight with dim=0 (a weight-normalised PReLU or norm layer): ATen divides each "
        "element by its own norm, |v|; both exporters reduce over the empty list of the other dims, which "
        "ONNX's ReduceL2 takes as every axis, one norm for the whole vector. While exporting, v * (g / |v|). "
        "Export time only (the call is inside nn.utils.weight_norm's hook), keyed on a line calling it being "
        "the first that differs from eager. Eager keeps the op.",
        static=False, rule="ONX515", repairs_divergence=r"^\w+ node__?weight_norm", named_at_line=True, one_pattern=True,
        site_applies=lambda args, kwargs: getattr(call_argument(args, kwargs, 0, "v"), "ndim", None) == 1
        and call_argument(args, kwargs, 2, "dim") in (0, None),
        proof=Proof("a * torch._weight_norm(c, w, 0)", "a * _onnx_weight_norm_1d(c, w, 0)",
                    "(randn(g, b, 6), randn(g, 6), randn(g, 6))", params="a, c, w", static=(1, 2)),
    ),
    Decomposition(
        "kept_constant", ("Tensor.__add__", "Tensor.__radd__", "Tensor.__sub__", "Tensor.__mul__", "Tensor.__rmul__",
                          "Tensor.__truediv__", "torch.add", "Tensor.add", "torch.sub", "Tensor.sub", "torch.mul",
                          "Tensor.mul", "torch.div", "Tensor.div"), True, (),
        ("https://github.com/iperov/DeepFaceLive/blob/ae8a1e0ff4b13e6e6a0155e346864805b2ca81dd/modelhub/onnx/TPSMM/TPSMM.py",),
        "An add or subtract of a float within 1e-8 of 0, or a multiply or divide by one within a relative 1e-5 "
        "of 1 (`torch.log(d + 1e-9)`, `1 / (n + 1e-8)`, `p * (1 - 1e-6)`): torch.onnx.export(dynamo=True) runs "
        "onnxscript's graph optimizer, whose no-op rules match scalar constants that close to 0 or 1 "
        "(math.isclose, abs_tol=1e-8, rel_tol=1e-5) and delete the node, so the epsilon that kept a log or a "
        "division finite is gone (-inf, inf, NaN where the value is 0). While exporting, the float is given "
        "as a one-element tensor of the input's rank (the rules match 0-d constants only): the same number in "
        "the input's dtype, the same arithmetic. Export time only, named by a call on the first divergent "
        "line or on a line whose value the graph lost; the static fix is ONX516's. Eager keeps the op.",
        static=False, wraps_op=True, rule="ONX516", named_at_line=True, one_pattern=True,
        site_applies=lambda args, kwargs: len(args) == 2 and not kwargs and near_identity(args[1]),
        proof=Proof("torch.log(a.relu() + 1e-9) + 1 / torch.add(a.relu(), 1e-8) - torch.log1p(-torch.sigmoid(a).mul(1 - 1e-6))",
                    "torch.log(_onnx_kept_constant(torch.add, a.relu(), 1e-9)) + 1 / _onnx_kept_constant(torch.add, "
                    "a.relu(), 1e-8) - torch.log1p(-_onnx_kept_constant(torch.mul, torch.sigmoid(a), 1 - 1e-6))",
                    "(randn(g, b, 8),)", params="a"),
    ),
    Decomposition(
        "index_put_reduced", ("Tensor.index_put", "torch.index_put", "Tensor.index_put_", "torch.index_put_"), True, (),
        ("https://github.com/microsoft/onnxscript/pull/3049",),
        "index_put or index_put_ with accumulate=True under the dynamo exporter: onnxscript's optimizer "
        "rewrites a ScatterND(reduction='add') whose constant indices cover the first dimension in order "
        "into its updates alone, dropping the input (a detection head merging class scores through an "
        "identity label map). While exporting, one row index and scatter_add (_onnx_index_put_rows, as "
        "ONX518's legacy fix), written into the input for index_put_. Export time only, named by a call on "
        "the first divergent line or on a line whose value the graph lost (the folded scatter's). Eager "
        "keeps the op.",
        static=False, wraps_op=True, rule="ONX515", repairs_divergence=r"^\w+ node_index_put", named_at_line=True,
        one_pattern=True, site_applies=lambda args, kwargs: call_argument(args, kwargs, 3, "accumulate") is True,
        proof=Proof("c.index_put((torch.arange(4),), a, accumulate=True) + c.clone().index_put_((torch.arange(4),), a, True)",
                    "_onnx_index_put_reduced(torch.Tensor.index_put, c, (torch.arange(4),), a, accumulate=True)"
                    " + _onnx_index_put_reduced(torch.Tensor.index_put_, c.clone(), (torch.arange(4),), a, True)",
                    "(randn(g, 4, 3), randn(g, 4, 3))", params="a, c", static=(0, 1), decomposition_tol=1e-6),
    ),
)
