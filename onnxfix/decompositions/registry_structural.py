"""Exact structural rewrites (statistics, index reductions, losses) and the dynamo exporter's silent bugs."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof  # noqa: F401 - used by entries

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "fill_diagonal_", ("Tensor.fill_diagonal_",), True, (),
        ("https://github.com/kornia/kornia/pull/1178",),
        "The positions whose indices are all equal as a mask, written in place with masked_fill_ "
        "(wrap=True on a tall matrix: every width + 1 flat positions, as ATen on a contiguous "
        "one). Neither exporter translates the op (no ONNX function for aten.fill_diagonal_, no "
        "symbolic). Eager keeps the op (guarded helper).", rule="ONX515",
        proof=Proof("a.clone().fill_diagonal_(2.5) + a.clone().fill_diagonal_(-1.0, wrap=True)",
                    "_onnx_fill_diagonal_(a.clone(), 2.5) + _onnx_fill_diagonal_(a.clone(), -1.0, wrap=True)",
                    "(randn(g, b, 3),)"),
    ),
    Decomposition(
        "bincount", ("torch.bincount", "Tensor.bincount"), False,
        ("bincount", "bincount minlength", "bincount weights"),
        ("https://github.com/AILab-CVC/YOLO-World/issues/536",),
        "Its length max(minlength, max + 1) computed as a tensor (clamp(input.max() + 1, min=minlength)), "
        "each value compared with arange(length) and the hits summed, weighted with weights in the "
        "dtype ATen returns (float32 / float64 weights keep theirs, others give float64): the same "
        "length and counts as torch for every input; the exported graph has a data-dependent length, "
        "which both exporters and onnxruntime take. Eager keeps the op (guarded helper): ATen "
        "accumulates weights in its own order.",
        rule="ONX515",
        proof=Proof("(torch.bincount(i), torch.bincount(i, c), torch.bincount(i, minlength=6))",
                    "(_onnx_bincount(i), _onnx_bincount(i, c), _onnx_bincount(i, minlength=6))",
                    "(ints(g, 0, 6, 10), randn(g, 10))", params="i, c", static=(0, 1), decomposition_tol=1e-6),
    ),
    *(Decomposition(
        f"{side}_indices", (f"torch.{side}_indices",), True, (f"{side}_indices sizes",),
        ("https://github.com/GoldwinXS/browsercompchem/blob/3aff7b49b19f9b232dd93e2875519c7c9a6b4af0/spike/ani2x-onnx/RESULTS.md",),
        f"Reported only where a row or column count is a size of the input (TorchANI's atom pairs of "
        f"`padding_mask.shape[1]`): the pairs' count is a function of the sizes, which torch.export pins to "
        f"the example's, and the legacy exporter has no symbolic for aten::{side}_indices (literal counts "
        f"fold to constants and export). The same pairs from a mask of the (row, col) grid, listed by "
        f"nonzero in {side}_indices' row-by-row order: integers, exact by construction; the exported count "
        f"is data-dependent, which both exporters and onnxruntime take.",
        rule="ONX515",
        proof=Proof(f"torch.{side}_indices(a.shape[0], a.shape[0] + 1, 1)",
                    f"_onnx_{side}_indices(a.shape[0], a.shape[0] + 1, 1)",
                    "(randn(g, b, 3),)"),
    ) for side in ("triu", "tril")),
    # ---- ONX516: the dynamo exporter exports these silently wrong ----
    Decomposition(
        "scatter_reduce", ("torch.scatter_reduce", "Tensor.scatter_reduce"), True,
        ("scatter_reduce mean", "scatter_reduce mean include_self=False", "scatter_reduce amax"),
        (PYTORCH + "147617", PYTORCH + "101535", PYTORCH + "86684", "https://github.com/onnx/onnx/issues/5100"),
        "reduce=\"mean\": a sum scatter divided by a count "
        "scatter, as ATen (count starts at 1 with include_self, 0 -> 1, floor division for "
        "integer dtypes). include_self=False with the other reductions (the legacy exporter "
        "refuses it for all): the scattered positions start from the reduction's identity, as in "
        "ATen, then scatter_reduce with include_self=True."
        " Eager keeps the op (guarded helper): the mean as scatter_add / count is another accumulation path than ATen's scatter_reduce mean.",
        rule="ONX516",
        proof=Proof(
            "torch.scatter_reduce(a, 1, i, c, 'mean', include_self=False) + a.scatter_reduce(1, i, c, 'mean') + "
            "torch.scatter_reduce(j, 1, i, k, 'mean') + torch.scatter_reduce(a, 1, i, c, 'amax', include_self=False) + "
            "torch.scatter_reduce(a, 1, i, c, 'sum', include_self=False) + torch.scatter_reduce(j, 1, i, k, 'amin', include_self=False)",
            "_onnx_scatter_reduce(a, 1, i, c, 'mean', include_self=False) + "
            "_onnx_scatter_reduce(a, 1, i, c, 'mean') + _onnx_scatter_reduce(j, 1, i, k, 'mean') + "
            "_onnx_scatter_reduce(a, 1, i, c, 'amax', include_self=False) + "
            "_onnx_scatter_reduce(a, 1, i, c, 'sum', include_self=False) + _onnx_scatter_reduce(j, 1, i, k, 'amin', include_self=False)",
            "(randn(g, b, 5), ints(g, 0, 5, b, 4), randn(g, b, 6), ints(g, -20, 20, b, 5), ints(g, -20, 20, b, 4))",
            params="a, i, c, j, k", decomposition_tol=1e-6,  # float sums in another kernel's order
        ),
    ),
    Decomposition(
        "atan2", ("torch.atan2", "Tensor.atan2", "torch.arctan2", "Tensor.arctan2"), True, (), (),
        "Both exporters write atan2 as an arctangent of the quotient with quadrant corrections, "
        "wrong where a coordinate is zero or infinite (measured on torch 2.13: atan2(+0, -1) is -pi "
        "where torch gives pi, atan2(1, -0) -pi/2 for pi/2, the legacy exporter's atan2(0, 0) NaN "
        "for 0, both exporters' atan2(inf, inf) 0 or NaN, dynamo's atan2 of a NaN 0): the phase of "
        "a real or zero-padded signal, a keypoint's angle on an axis. The helper sets those points "
        "to C's atan2 values (a -0 result may come out +0). Eager keeps the op (guarded helper).",
        rule="ONX516",
        proof=Proof("torch.atan2(a, c) + a.atan2(c.flip(-1))", "_onnx_atan2(a, c) + _onnx_atan2(a, c.flip(-1))",
                    "(axis_points(g, b, 40), axis_points(g, b, 40))", params="a, c", decomposition_tol=1e-6),
    ),
    Decomposition(
        "hamming_window", ("torch.hamming_window",), True, ("hamming_window",), (PYTORCH + "120316",),
        "torch's formula alpha - beta * cos(2 pi n / (N - 1)), N + 1 points cut to N when periodic. "
        "The dynamo exporter writes ONNX's HammingWindow, whose coefficients are 25/46 and 21/46 "
        "instead of torch's 0.54 and 0.46 (measured: 0.087 instead of 0.08 at the ends). Eager "
        "keeps the op (guarded helper).",
        rule="ONX516",
        proof=Proof("a * torch.hamming_window(8) + torch.hamming_window(8, periodic=False)",
                    "a * _onnx_hamming_window(8) + _onnx_hamming_window(8, periodic=False)",
                    "(randn(g, b, 8),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "avg_pool2d", ("torch.nn.functional.avg_pool2d",), True, (), (),
        "With divisor_override (the only calls decomposed): the window sums (the "
        "count_include_pad mean times the kernel's size) divided by the divisor. Both exporters "
        "write an AveragePool that ignores the divisor: silently wrong. With ceil_mode the op is "
        "kept (clipped windows). Eager keeps the op (guarded helper).",
        requires=("avg_pool_divisor",), when_present=("divisor_override", 6), rule="ONX516",
        proof=Proof("torch.nn.functional.avg_pool2d(a, 2, divisor_override=1)",
                    "_onnx_avg_pool2d(a, 2, divisor_override=1)", "(randn(g, b, 2, 8, 6),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "avg_pool3d", ("torch.nn.functional.avg_pool3d",), True, (), (),
        "With divisor_override, as avg_pool2d's helper (the window sums divided by the divisor). "
        "Eager keeps the op (guarded helper).",
        requires=("avg_pool_divisor",), when_present=("divisor_override", 6), rule="ONX516",
        proof=Proof("torch.nn.functional.avg_pool3d(a, (2, 2, 2), stride=1, padding=1, divisor_override=3)",
                    "_onnx_avg_pool3d(a, (2, 2, 2), stride=1, padding=1, divisor_override=3)",
                    "(randn(g, b, 2, 4, 5, 4),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "kaiser_window", ("torch.kaiser_window",), True, (), (),
        "ATen's formula i0(beta sqrt(1 - ((n - a) / a)^2)) / i0(beta), a = (N - 1) / 2, N + 1 "
        "points cut to N when periodic, with _onnx_i0 (Cephes, as ATen). The dynamo exporter "
        "has no translation of aten.kaiser_window (torchaudio's sinc resampling builds one). "
        "Eager keeps the op (guarded helper).",
        requires=("i0",), rule="ONX515",
        proof=Proof("a * torch.kaiser_window(8) + torch.kaiser_window(8, periodic=False, beta=5.0)",
                    "a * _onnx_kaiser_window(8) + _onnx_kaiser_window(8, periodic=False, beta=5.0)",
                    "(randn(g, b, 8),)", decomposition_tol=1e-5),
    ),
    Decomposition(
        "bartlett_window", ("torch.bartlett_window",), True, (), (),
        "ATen's steps: x = 2 n / (N - 1) over the first half, 2 - x over the second, N + 1 points "
        "cut to N when periodic. The dynamo exporter has no translation of aten.bartlett_window. "
        "Eager keeps the op (guarded helper).",
        rule="ONX515",
        proof=Proof("a * torch.bartlett_window(8) + torch.bartlett_window(7, periodic=False)[:1]",
                    "a * _onnx_bartlett_window(8) + _onnx_bartlett_window(7, periodic=False)[:1]",
                    "(randn(g, b, 8),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "conv_weight_shape", ("torch.nn.functional.conv1d", "torch.nn.functional.conv2d", "torch.nn.functional.conv3d",
                              "torch.nn.functional.conv_transpose1d", "torch.nn.functional.conv_transpose2d",
                              "torch.nn.functional.conv_transpose3d"),
        True, (), ("https://github.com/openvinotoolkit/anomalib/issues/1513",),
        "A convolution's arguments as the legacy exporter can take them (one helper: both repairs touch "
        "F.conv*, one table entry each). A kernel built in forward (of a convolution or a transposed one) is "
        "reshaped to its sizes as numbers while the legacy exporter traces (it needs the kernel's shape: "
        "\"convolution for kernel of unknown shape\"), so those sizes are constants in the graph (kept only "
        "when the export matches PyTorch on the probes); padding='same' with a dilation above 1 (an "
        "nn.Conv2d layer's own call: onnxruntime refuses legacy's Conv(auto_pad=SAME_UPPER) with dilations) "
        "is an explicit F.pad of dilation * (kernel - 1) zeros per axis, the smaller half first as torch, "
        "and padding=0. A group count torch.export keeps symbolic (DMNet's groups=b * c) takes "
        "_onnx_conv_groups under dynamo. Export time only, keyed on those errors. Eager runs the op; "
        "dynamo runs it for any other call.",
        static=False, wraps_op=True, rule="ONX515",
        repairs_error=r"convolution for kernel of unknown shape|Dilation not supported for AutoPadType"
                      r"|Error calling operator 'Conv'",
        proof=Proof("torch.nn.functional.conv2d(a, c[..., :3].expand(3, 1, 3, 3).reshape(-1, 1, 3, 3), groups=3)"
                    " + torch.nn.functional.conv2d(a, c.expand(3, 3, 3, 4), padding='same', dilation=(2, 1))[..., 1:7, 1:7]",
                    "_onnx_conv_weight_shape(torch.nn.functional.conv2d, a, c[..., :3].expand(3, 1, 3, 3).reshape(-1, 1, 3, 3), groups=3)"
                    " + _onnx_conv_weight_shape(torch.nn.functional.conv2d, a, c.expand(3, 3, 3, 4), padding='same',"
                    " dilation=(2, 1))[..., 1:7, 1:7]",
                    "(randn(g, b, 3, 8, 8), randn(g, 1, 1, 3, 4))", params="a, c", static=(1,), decomposition_tol=2e-6),
    ),
    Decomposition(
        "conv_groups", ("torch.nn.functional.conv2d", "torch.nn.functional.conv3d"), True, ("conv2d groups from sizes",),
        ("https://github.com/open-mmlab/mmdeploy/issues/2326", "https://github.com/onnx/onnx/issues/3843"),
        "A convolution whose groups are read from the input's sizes (a per-sample filter run as one "
        "grouped conv: DMNet's groups=b * c, SiamRPN's depthwise cross-correlation): ONNX's Conv takes "
        "a constant group count (dynamo: \"Error calling operator 'Conv'\"; legacy bakes the count in). "
        "The groups become an axis and the convolution a sum over the kernel's offsets (the kernel's "
        "spatial sizes static; string paddings run the op). Reported only for groups computed from "
        "sizes. Eager runs the op (guarded helper).",
        rule="ONX515", at_export_by="conv_weight_shape",
        proof=Proof("torch.nn.functional.conv2d(a.reshape(1, -1, 6, 7), c.reshape(-1, 1, 3, 3), groups=a.shape[0] * a.shape[1])",
                    "_onnx_conv_groups(a.reshape(1, -1, 6, 7), c.reshape(-1, 1, 3, 3), groups=a.shape[0] * a.shape[1])",
                    "(randn(g, b, 3, 6, 7), randn(g, b, 3, 3, 3))", params="a, c", decomposition_tol=1e-5),
    ),
    Decomposition(
        "one_hot_sizes", ("torch.nn.functional.one_hot",), True, ("one_hot num_classes from sizes",),
        ("https://github.com/open-mmlab/mmediting/pull/105",),
        "F.one_hot whose class count is read from the input's sizes (GCA-Matting's `num_classes=h * w`): "
        "the dynamo exporter records the export's count; or left to the data (-1, the default: max + 1, "
        "which neither exporter takes). A comparison with arange(num_classes), in int64. Reported only "
        "for those counts. Eager runs the op (guarded helper).",
        rule="ONX515",
        proof=Proof("torch.cat([torch.nn.functional.one_hot(torch.arange(a.shape[0]), num_classes=a.shape[0]), "
                    "torch.nn.functional.one_hot(torch.arange(a.shape[0]))], 1) * a[:, :1]",
                    "torch.cat([_onnx_one_hot_sizes(torch.arange(a.shape[0]), num_classes=a.shape[0]), "
                    "_onnx_one_hot_sizes(torch.arange(a.shape[0]))], 1) * a[:, :1]",
                    "(randn(g, b, 3),)"),
    ),
    Decomposition(
        "sdpa_batched_heads", ("torch.nn.functional.scaled_dot_product_attention",), True, (),
        ("https://github.com/pytorch/pytorch/issues/135615", "https://github.com/pytorch/pytorch/issues/152018",
         "https://github.com/manh9011/TranskunWeb/blob/a498e26eb358a9ddaeadc53cf4b9283a48127553/public/models/"
         "transkun/export_transkun.py"),
        "Attention on 3-D (batch, length, features) tensors with a heads axis of 1 added and "
        "dropped (a 3-D mask gets one too), or on 5-D and higher ones with the batch axes (broadcast "
        "to the query's) flattened into one and restored: the dynamo exporter takes only 4-D ones. Export "
        "time only (ranks are not visible to the source), keyed on that error. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=r"only 4D query, key, and value are supported",
        proof=Proof("torch.nn.functional.scaled_dot_product_attention(a, c, c, scale=0.3)",
                    "_onnx_sdpa_batched_heads(a, c, c, scale=0.3)",
                    "(randn(g, b, 4, 8), randn(g, b, 6, 8))", params="a, c", decomposition_tol=1e-6),
    ),
    Decomposition(
        "squeeze_dim", ("torch.squeeze", "Tensor.squeeze"), True, (), (),
        "squeeze of the given axes whose size is 1 (a dynamic size decided as torch's own squeeze decides it "
        "while exporting), the tensor itself where none is: torch's squeeze leaves a dimension of another size "
        "alone, the dynamo exporter writes a Squeeze onnxruntime refuses to load, or to run on a dynamic size. "
        "Export time only, keyed on those errors (sizes are not visible to the source). Eager keeps the op.",
        static=False, rule="ONX515",
        repairs_error=r"(\(Squeeze\) \[ShapeInferenceError\]|running Squeeze node\..*) Dimension of input \d+ must be 1",
        proof=Proof("torch.squeeze(a, -1) + torch.squeeze(c, (1, -1))[:, None, None]",
                    "_onnx_squeeze_dim(a, -1) + _onnx_squeeze_dim(c, (1, -1))[:, None, None]",
                    "(randn(g, b, 4, 3), randn(g, b, 1, 1))", params="a, c"),
    ),
    Decomposition(
        "remainder_symbolic", ("torch.remainder", "Tensor.remainder"), True, (), (),
        "`t % n` with n a dynamic size: torch.onnx's function for aten.remainder.Scalar needs a constant "
        "divisor and fails on a symbolic one; while exporting, an integer tensor's remainder is "
        "`t - floor(t / n) * n` (Python's definition: exact in integers, the divisor's sign kept; float "
        "tensors keep the op). Export time only, keyed on that error. Eager keeps the op.",
        static=False, rule="ONX515",
        repairs_error=r"aten_remainder_scalar|not 'SymbolicTensor'",
        proof=Proof("(a - a.shape[0] * 7) % a.shape[0] + torch.remainder(a, a.shape[0] + 1)",
                    "_onnx_remainder_symbolic(a - a.shape[0] * 7, a.shape[0]) + _onnx_remainder_symbolic(a, a.shape[0] + 1)",
                    "(ints(g, -50, 50, b, 4),)"),
    ),
    Decomposition(
        "scatter_reduce_", ("Tensor.scatter_reduce_",), True, ("Tensor.scatter_reduce_ mean",), (),
        "The in-place form: _onnx_scatter_reduce's result copied into `input` (returned, as torch).",
        requires=("scatter_reduce",),
        rule="ONX516",
        proof=Proof(
            "torch.zeros_like(a).scatter_reduce_(1, i, c, 'mean', include_self=False) + "
            "a.clone().scatter_reduce_(1, i, c, reduce='mean')",
            "_onnx_scatter_reduce_(torch.zeros_like(a), 1, i, c, 'mean', include_self=False) + "
            "_onnx_scatter_reduce_(a.clone(), 1, i, c, reduce='mean')",
            "(randn(g, b, 5), ints(g, 0, 5, b, 4), randn(g, b, 6))",
            params="a, i, c",
        ),
    ),
    Decomposition(
        "cross_entropy", ("torch.nn.functional.cross_entropy",), True,
        ("cross_entropy label_smoothing", "cross_entropy label_smoothing weight",
         "cross_entropy label_smoothing probabilities"), (),
        "label_smoothing > 0: ATen's formula, (1 - ls) * nll_loss + ls / C * the smoothing term, "
        "with weight=, ignore_index=, every reduction, and class-probability targets. With "
        "weight= and reduction=\"mean\" the weight total is summed with the ignored targets "
        "zeroed instead of dropped (1 ulp differences)."
        " Eager keeps the op (guarded helper): label smoothing's sums run over other tensors than ATen's (the kept weights masked, not masked_select-ed): float sums in another order.",
        when_present=("label_smoothing", 7),
        # F.cross_entropy dispatches to aten::cross_entropy_loss: the dynamo exporter's
        # SoftmaxCrossEntropyLoss node (which drops label_smoothing) and the legacy error name it
        aten=("cross_entropy_loss",),
        rule="ONX516",
        proof=Proof(
            "torch.nn.functional.cross_entropy(a, t, w, ignore_index=1, label_smoothing=0.1) + "
            "torch.nn.functional.cross_entropy(a, t, reduction='none', label_smoothing=0.2) + "
            "torch.nn.functional.cross_entropy(a, p, label_smoothing=0.3)",
            "_onnx_cross_entropy(a, t, w, ignore_index=1, label_smoothing=0.1) + "
            "_onnx_cross_entropy(a, t, reduction='none', label_smoothing=0.2) + "
            "_onnx_cross_entropy(a, p, label_smoothing=0.3)",
            "(randn(g, b, 5), ints(g, 0, 5, b), torch.rand(5, generator=g), class_probabilities(g, b, 5))",
            params="a, t, w, p", static=(2,), decomposition_tol=1e-6,
        ),
    ),
    # ---- ONX515: structural ops that fail to export ----
    Decomposition(
        "cov", ("torch.cov", "Tensor.cov"), True, ("cov",), (PYTORCH + "107016", PYTORCH + "107015"),
        "ATen's formula (weighted mean, correction, fweights/aweights, <= 0 degrees of freedom "
        "give inf/NaN) without the value checks that make torch.export fail; invalid weights "
        "(negative, zero total) are not diagnosed. Same matmul as eager.",
        rule="ONX515",
        proof=Proof(
            "torch.cov(a) + torch.cov(a, correction=0, aweights=w) + a.cov(fweights=f, aweights=w)",
            "_onnx_cov(a) + _onnx_cov(a, correction=0, aweights=w) + _onnx_cov(a, fweights=f, aweights=w)",
            "(randn(g, b, 6), torch.rand(6, generator=g), ints(g, 1, 4, 6))",
            params="a, w, f", static=(1, 2),
        ),
    ),
    Decomposition(
        "corrcoef", ("torch.corrcoef", "Tensor.corrcoef"), True, ("corrcoef",), (),
        "Covariance normalised by the standard deviations and clipped to [-1, 1], as ATen.",
        requires=("cov",),
        rule="ONX515",
        proof=Proof("torch.corrcoef(a)", "_onnx_corrcoef(a)", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "index_reduce", ("Tensor.index_reduce",), True, ("index_reduce amax", "index_reduce mean"), (),
        "scatter_reduce over the 1-D index expanded to source's shape; mean as _onnx_scatter_reduce; "
        "include_self=False starts the indexed positions from the reduction's identity."
        " Eager keeps the op (guarded helper): scatter_reduce is another kernel than index_reduce (order of the prod/mean accumulation).",
        requires=("scatter_reduce",),
        rule="ONX515",
        proof=Proof(
            "a.index_reduce(1, i, c, 'amax', include_self=False) + a.index_reduce(1, i, c, 'mean') + "
            "a.index_reduce(1, i, c, 'prod', include_self=False)",
            "_onnx_index_reduce(a, 1, i, c, 'amax', include_self=False) + _onnx_index_reduce(a, 1, i, c, 'mean') + "
            "_onnx_index_reduce(a, 1, i, c, 'prod', include_self=False)",
            "(randn(g, b, 5), ints(g, 0, 5, 6), randn(g, b, 6))",
            params="a, i, c", static=(1,), decomposition_tol=1e-6,  # mean/prod in another kernel's order
        ),
    ),
    Decomposition(
        "index_reduce_", ("Tensor.index_reduce_",), True, ("Tensor.index_reduce_ amin",), (),
        "The in-place form: _onnx_index_reduce's result copied into `input` (returned, as torch).",
        requires=("index_reduce",),
        rule="ONX515",
        proof=Proof(
            "a.clone().index_reduce_(1, i, c, 'amin') + "
            "torch.zeros_like(a).index_reduce_(1, i, c, 'mean', include_self=False)",
            "_onnx_index_reduce_(a.clone(), 1, i, c, 'amin') + "
            "_onnx_index_reduce_(torch.zeros_like(a), 1, i, c, 'mean', include_self=False)",
            "(randn(g, b, 5), ints(g, 0, 5, 6), randn(g, b, 6))",
            params="a, i, c", static=(1,),
        ),
    ),
    Decomposition(
        "vander", ("torch.vander",), True, ("vander",), (),
        "The same sequential products as ATen's cumprod, unrolled over the static column count N "
        "(the graph grows with N); integer and bool inputs give int64, as torch."
        " Eager keeps the op (guarded helper): ATen's cumprod accumulates complex64 in complex128, the unrolled products do not (measured: differs in eager on complex inputs).",
        rule="ONX515",
        proof=Proof(
            "torch.vander(a, 4) + torch.vander(a, N=4, increasing=True)",
            "_onnx_vander(a, 4) + _onnx_vander(a, N=4, increasing=True)",
            "(randn(g, b),)",
        ),
    ),
    Decomposition(
        "combinations", ("torch.combinations",), True, ("combinations",), (),
        "Index tuples built in Python from the static input length n (a constant of C(n, r) rows "
        "in the graph); the input length must be static at export time.",
        rule="ONX515",
        proof=Proof(
            "torch.combinations(a, 3).sum(1) + torch.combinations(a, 3, with_replacement=True)[:10].sum(1)",
            "_onnx_combinations(a, 3).sum(1) + _onnx_combinations(a, 3, with_replacement=True)[:10].sum(1)",
            "(randn(g, 5),)",
            static=(0,),
        ),
    ),
    Decomposition(
        "pdist", ("torch.nn.functional.pdist", "torch.pdist"), True, ("pdist",), (),
        "Row pairs i < j from triu_indices of the static row count, then ATen's p-norm formulas "
        "(p = 0, 1, 2, inf, general); O(n^2 * m) memory. Agrees with eager to float rounding "
        "(the reduction order over columns may differ).",
        rule="ONX515",
        proof=Proof(
            "torch.nn.functional.pdist(a) + torch.nn.functional.pdist(a, p=1)",
            "_onnx_pdist(a) + _onnx_pdist(a, p=1)",
            "(randn(g, 5, 3),)",
            static=(0,), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "narrow", ("torch.narrow", "Tensor.narrow"), True, ("narrow tensor start",), (),
        "A tensor `start` becomes index_select(start + arange(length)); an int start runs "
        "torch.narrow unchanged. An out-of-range start is not diagnosed (torch raises).",
        rule="ONX515",
        proof=Proof(
            "torch.narrow(a, 1, s, 2) + a.narrow(1, s + 1, 2)",
            "_onnx_narrow(a, 1, s, 2) + _onnx_narrow(a, 1, s + 1, 2)",
            "(randn(g, b, 6), ints(g, 0, 4, 1)[0])",
            params="a, s", static=(1,),
        ),
    ),
    Decomposition(
        "ctc_loss", ("torch.nn.functional.ctc_loss",), True, ("ctc_loss",), (),
        "ATen's alpha recursion in log space over all T steps and 2S+1 extended labels for every "
        "sample (T and the padded target length S static; batch dynamic); the per-sample "
        "lengths select the result by gathers. Same log-sum-exp steps as ATen; torch's "
        "vectorised exp/log may round differently from the kernel's scalar ones. The graph "
        "grows with T."
        " Eager keeps the op (guarded helper): the alpha recursion's exp/log run as vectorized tensor ops, ATen's CPU kernel as scalar libm calls.",
        rule="ONX515",
        proof=Proof(
            "torch.nn.functional.ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl) + "
            "torch.nn.functional.ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl, reduction='none', "
            "zero_infinity=True).sum()",
            "_onnx_ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl) + "
            "_onnx_ctc_loss(a.transpose(0, 1).log_softmax(2), t, il, tl, reduction='none', "
            "zero_infinity=True).sum()",
            "(randn(g, b, 10, 5), ints(g, 1, 5, b, 4), ints(g, 5, 11, b), ints(g, 0, 5, b))",
            params="a, t, il, tl", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "masked_select", ("torch.masked_select", "Tensor.masked_select"), True, ("masked_select",),
        (PYTORCH + "26034", PYTORCH + "27959"),
        "Boolean indexing of the broadcast pair (`input[mask]`): the same elements in the same "
        "order, a data-dependent output size that both exporters express (NonZero). Bit-identical.",
        rule="ONX515",
        proof=Proof(
            "torch.masked_select(a, a > 0) * 2 + a.masked_select(a > 0)",
            "_onnx_masked_select(a, a > 0) * 2 + _onnx_masked_select(a, a > 0)",
            "(randn(g, b, 5),)",
        ),
    ),
    Decomposition(
        "unique_consecutive", ("torch.unique_consecutive", "Tensor.unique_consecutive"), True,
        ("unique_consecutive", "unique_consecutive dim"), (PYTORCH + "112718", "https://github.com/microsoft/onnxscript/pull/1547"),
        "A slice is kept where it differs (`!=`) from its predecessor along `dim` (the flattened "
        "input without `dim`), selected by boolean indexing; return_inverse is the running count "
        "of kept slices, return_counts the distance between kept positions. NaN starts a new group, "
        "as torch. Bit-identical.",
        rule="ONX515",
        proof=Proof(
            "torch.cat([torch.unique_consecutive(a.round()), torch.unique_consecutive(a.round(), "
            "return_counts=True)[1], a.round().unique_consecutive(return_inverse=True)[1].flatten(), "
            "torch.unique_consecutive(a.round(), dim=0).flatten()])",
            "torch.cat([_onnx_unique_consecutive(a.round()), _onnx_unique_consecutive(a.round(), "
            "return_counts=True)[1], _onnx_unique_consecutive(a.round(), return_inverse=True)[1].flatten(), "
            "_onnx_unique_consecutive(a.round(), dim=0).flatten()])",
            "(randn(g, b, 2) * 0.6,)",
        ),
    ),
    Decomposition(
        "rfftfreq", ("torch.fft.rfftfreq",), True, ("fft.rfftfreq",), (),
        "ATen's formula, arange(n // 2 + 1) * (1 / (n * d)) with the reciprocal in double: "
        "bit-identical. `n` may be a size read from the input (it stays symbolic under dynamo).",
        rule="ONX515",
        proof=Proof(
            "a * torch.fft.rfftfreq(2 * a.shape[-1] - 1, 0.5)",
            "a * _onnx_rfftfreq(2 * a.shape[-1] - 1, 0.5)",
            "(randn(g, b, 5),)",
        ),
    ),
    Decomposition(
        "pad_split", ("torch.nn.utils.rnn.pad_sequence",), True, (), (PYTORCH + "127153",),
        "Only `pad_sequence(x.split(n.tolist()), ...)` (split along dim 0, `padding_side` "
        "\"right\"), inline or through a variable used only there: the padded result gathers "
        "x[start_i + t] (start = cumsum(n) - n) where t < n[i] and holds padding_value after, "
        "one gather and one where with sizes the graph computes. Bit-identical (every dtype, "
        "lengths 0, all lengths 0); a 0-d `n` (equal chunks) runs the original. Inputs torch "
        "rejects (lengths not summing to the size, a padding value out of the dtype's range) are "
        "not diagnosed. Source fix only: `onnxfix export --decompose` intercepts one call, and "
        "here the failing split is a second one.",
        rule="ONX515",
        proof=Proof(
            "torch.nn.utils.rnn.pad_sequence(a.split(n.tolist()), batch_first=True), "
            "torch.nn.utils.rnn.pad_sequence(torch.split(a, n.tolist()), False, -1.0)",
            "_onnx_pad_split(a, n, batch_first=True), _onnx_pad_split(a, n, False, -1.0)",
            "(randn(g, b, 3), split_lengths(g, b, b))",
            params="a, n",
        ),
    ),
    # ---- custom operators of the ecosystem (torch.library), with no ONNX translation ----
    Decomposition(
        "grouped_mm_fallback", ("torch.ops.transformers.grouped_mm_fallback",), True, (),
        ("https://github.com/huggingface/transformers/blob/main/src/transformers/integrations/moe.py",),
        "transformers' mixture-of-experts matmul (PhiMoE, Qwen3-MoE, ...: rows grouped by expert, "
        "`offs` the cumulative row counts), a custom op whose kernel loops over offs.tolist(). "
        "Every row times every expert's weight, then each row's own expert gathered (rows past "
        "offs[-1] zero): experts x rows x out in memory, and experts times the kernel's flops."
        " Eager keeps the op (guarded helper): one broadcast matmul instead of one mm per expert.",
        rule="ONX515", registered_by="transformers.integrations.moe",
        proof=Proof(
            "torch.ops.transformers.grouped_mm_fallback(a, w, o)",
            "_onnx_grouped_mm_fallback(a, w, o)",
            "(randn(g, b, 5), randn(g, 4, 5, 3), torch.tensor([1, 1, b - 1, b - 1]))",
            params="a, w, o", static=(1, 2), decomposition_tol=1e-6,
        ),
    ),
    # ---- exporter bugs with a faithful workaround, named by the failure ----
    Decomposition(
        "contiguous", ("Tensor.contiguous",), True, (), (),
        "A clone in the requested memory format while exporting: torch.onnx's decomposition step "
        "drops `.contiguous()` on a view whose contiguity depends on dynamic sizes (T5's "
        "attention output, transposed from (batch, heads, seq, dim)) and the next reshape fails "
        "as an invalid view. Never reported statically (the op exports); `onnxfix export` names it "
        "when the run fails that way. Eager keeps the op (guarded helper): contiguous() returns "
        "the tensor itself when it already is contiguous.",
        rule="ONX515", repairs_error=r"Cannot view a tensor with shape .* and strides",
        proof=Proof(
            "a.transpose(1, 2).contiguous().reshape(a.shape[0], a.shape[2], -1)",
            "_onnx_contiguous(a.transpose(1, 2)).reshape(a.shape[0], a.shape[2], -1)",
            "(randn(g, b, 4, 7, 8),)",
        ),
    ),
    Decomposition(
        "whole_pool", tuple(f"torch.nn.functional.{kind}_pool{rank}d" for kind in ("avg", "max") for rank in (1, 2, 3))
        + ("torch.avg_pool1d", "torch.max_pool1d", "torch.max_pool2d", "torch.max_pool3d"),
        False, (), ("https://github.com/HRNet/HRNet-Image-Classification/pull/13", PYTORCH + "34743",
                    PYTORCH + "39323"),
        "A pooling whose window is the input's own trailing sizes (a global pooling: "
        "`F.avg_pool2d(x, x.size()[2:])`, `F.max_pool1d(x, x.size(2))`) as a mean (a max) over those "
        "axes while exporting; any other window, padding, dilation, indices or divisor runs the op. "
        "The mean rounds as ReduceMean, not as AveragePool. Written by ONX408 where the source "
        "passes the input's sizes; eager keeps the op (guarded helper).",
        static=False, wraps_op=True, rule="ONX408",
        proof=Proof("torch.nn.functional.avg_pool2d(a, a.shape[2:]) + torch.nn.functional.max_pool1d(a.flatten(2), a.flatten(2).size(2)).unsqueeze(-1)",
                    "_onnx_whole_pool(torch.nn.functional.avg_pool2d, a, a.shape[2:]) + "
                    "_onnx_whole_pool(torch.nn.functional.max_pool1d, a.flatten(2), a.flatten(2).size(2)).unsqueeze(-1)",
                    "(randn(g, b, 3, 5, 7),)", decomposition_tol=1e-6),
    ),
)
SUPPORT: tuple[str, ...] = ("avg_pool_divisor", "fill_diagonal_view")  # helpers that decompose nothing on their own (fill_diagonal_view: ONX303)
