"""Structural, indexing, pooling/resampling and signal ops only the legacy (TorchScript) exporter
fails on (ONX519); fixed when a project targets legacy. Dynamo exports them."""

from __future__ import annotations

from onnxfix.decompositions.base import NEGATIVE, literal_matches, PYTORCH, Decomposition, Proof, call_argument

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "adaptive_avg_pool2d", ("torch.nn.functional.adaptive_avg_pool2d",), True,
        ("adaptive_avg_pool2d non-divisible",),
        (PYTORCH + "42653", PYTORCH + "64806", PYTORCH + "109370",
         "https://github.com/CSAILVision/semantic-segmentation-pytorch/issues/240"),
        "One mean per row bin, then per column bin of those means, over torch's bins "
        "(floor(i*H/oh) .. ceil((i+1)*H/oh)): each axis's bin sums one matmul with a (size, bins) "
        "0/1 matrix whose edges are computed from the input's size as a tensor (a dynamic H, W "
        "stays dynamic; memory O(H * oh + W * ow) beside the input; a NaN or inf stays in its "
        "bins), over the bin's count. Equal to torch up to float rounding (a mean of means; the "
        "proof's tolerance, 1e-6 relative). Output size 1 is a plain "
        "mean over H, W (`onnxfix export --decompose` also routes global pooling here). "
        "`onnxfix export` substitutes it where the legacy exporter refuses a layer's output size "
        "(an nn.AdaptiveAvgPool2d inside a ModuleList: no source call to rewrite).",
        requires=("adaptive_bin_means",),
        rule="ONX519",
        # the second: an output size with a None (`nn.AdaptiveAvgPool2d((1, None))`, that size kept)
        repairs_error=r"adaptive_avg_pool2d, output size that are not factor of input size"
                      r"|operator adaptive pooling, since output_size is not constant",
        proof=Proof(
            "torch.nn.functional.adaptive_avg_pool2d(a, (3, 4)) + "
            "torch.nn.functional.adaptive_avg_pool2d(a, (3, None))[..., :4]",
            "_onnx_adaptive_avg_pool2d(a, (3, 4)) + _onnx_adaptive_avg_pool2d(a, (3, None))[..., :4]",
            "(randn(g, b, 2, 8, 7),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "adaptive_avg_pool1d", ("torch.nn.functional.adaptive_avg_pool1d",), True,
        ("adaptive_avg_pool1d non-divisible",), (),
        "The 2-D helper over a height of 1: the same bins along the last dimension (static length).",
        requires=("adaptive_avg_pool2d",),
        rule="ONX519",
        proof=Proof(
            "torch.nn.functional.adaptive_avg_pool1d(a, 5)",
            "_onnx_adaptive_avg_pool1d(a, 5)",
            "(randn(g, b, 3, 13),)",
        ),
    ),
    Decomposition(
        "pixel_shuffle", ("torch.nn.functional.pixel_shuffle", "torch.pixel_shuffle"), True, (),
        ("https://github.com/tiny-smart/dysample/issues/5",),
        "pixel_shuffle of a tensor with more than one batch dimension: the legacy exporter takes 4-D "
        "inputs only (\"only support 4d input\"); torch's definition as a reshape, a permutation "
        "and a reshape (exact) instead. Export time only, named by that error (the rank is not "
        "visible at the source). Eager keeps the op. The same rearrangement for integer or bool "
        "inputs of any rank (no integer DepthToSpace in onnxruntime: float32_compute calls the helper).",
        static=False, rule="ONX519", site_applies=lambda args, kwargs: args[0].dim() != 4,
        proof=Proof("torch.nn.functional.pixel_shuffle(a, 2)", "_onnx_pixel_shuffle(a, 2)",
                    "(randn(g, b, 2, 8, 3, 5),)"),
    ),
    Decomposition(
        "repeat_interleave_dim", ("torch.repeat_interleave", "Tensor.repeat_interleave"), True, (),
        ("https://github.com/pytorch/pytorch/issues/128505",),
        "repeat_interleave along a negative dim (`repeat_interleave(freqs, 2, dim=-1)` in a RoPE): the "
        "legacy exporter's symbolic normalises the dim by adding the rank in place, in the graph constant "
        "every equal literal shares, so another -1 of the model (a view or an expand) reads rank - 1: the "
        "exported model fails in onnxruntime (\"invalid expand shape\") or computes another shape. Written "
        "as _onnx_repeat_interleave (an unsqueeze, an expand and a flatten while the legacy exporter "
        "traces: exact); at export time that record takes the calls. Eager and the dynamo exporter keep "
        "the op (legacy-guarded helper).",
        requires=("repeat_interleave",), when_literals=(("dim", 2, NEGATIVE),), at_export_by="repeat_interleave",
        rule="ONX519",
        proof=Proof("a.reshape(a.shape[0], -1).repeat_interleave(2, dim=-1)",
                    "_onnx_repeat_interleave_dim(a.reshape(a.shape[0], -1), 2, dim=-1)",
                    "(randn(g, b, 2, 3),)"),
    ),
    Decomposition(
        "repeat_interleave", ("torch.repeat_interleave", "Tensor.repeat_interleave"), True, (),
        ("https://github.com/pytorch/pytorch/issues/145100",),
        "repeat_interleave by one int count along a dim, as an unsqueeze, an expand and a flatten "
        "(a rearrangement: exact) while exporting: along a negative dim the legacy exporter's symbolic "
        "adds the rank to the dim in place, in a constant other nodes share (repeat_interleave_dim), and "
        "another -1 of the model reads rank - 1: a later cat fails (\"All tensors must have the same "
        "rank\", GLM's interleaved RoPE) or an expand (Cohere's rotary table). Export time "
        "only (ONX519's repeat_interleave_dim rewrites a literal negative dim in the user's files), named by "
        "that error, or wherever a legacy run called the op when its export diverges or fails in "
        "onnxruntime (a library's model); `--write` rewrites the calls along a negative dim the run "
        "decomposed. Tensor counts and dim=None run the op. Eager and the dynamo exporter keep the "
        "op (legacy-guarded helper).",
        static=False, rule="ONX519", repairs_error=r"All tensors must have the same rank", repairs_anywhere="legacy",
        site_applies=lambda args, kwargs: isinstance(call_argument(args, kwargs, 1, "repeats"), int)
        and literal_matches(NEGATIVE, call_argument(args, kwargs, 2, "dim")),
        proof=Proof("a.repeat_interleave(2, dim=-1)[..., :a.shape[-1]] + torch.repeat_interleave(a, 2, 1)[:, :a.shape[1]]",
                    "_onnx_repeat_interleave(a, 2, dim=-1)[..., :a.shape[-1]] + _onnx_repeat_interleave(a, 2, 1)[:, :a.shape[1]]",
                    "(randn(g, b, 3, 4),)"),
    ),
    Decomposition(
        "instance_norm", ("torch.nn.functional.instance_norm",), True, ("instance_norm running stats",),
        ("https://github.com/pytorch/pytorch/issues/72057",),
        "With running statistics in eval (use_input_stats=False: an InstanceNorm layer built with "
        "track_running_stats=True, as StarGAN's): batch_norm in eval, the same per-channel "
        "formula; other calls run torch's instance_norm. `onnxfix export` substitutes it where "
        "the legacy exporter refuses the layer (no source call to rewrite). Eager and dynamo keep "
        "the op (guarded helper).",
        rule="ONX519", repairs_error=r"instance_norm training for unknown batch size",
        proof=Proof("torch.nn.functional.instance_norm(a, m, v, use_input_stats=False)",
                    "_onnx_instance_norm(a, m, v, use_input_stats=False)",
                    "(randn(g, b, 3, 4, 5), randn(g, 3), positive(g, 3))",
                    params="a, m, v", static=(1, 2), decomposition_tol=1e-6),
    ),
    Decomposition(
        "batch_norm_stats", ("torch.nn.functional.batch_norm",), True, ("batch_norm batch statistics",),
        ("https://github.com/microsoft/onnxscript/pull/1217", "https://github.com/microsoft/onnxscript/pull/1804"),
        "On the batch's own statistics with no running ones (training=True, running_mean and running_var "
        "None: timm's NFNet, detectron2's BatchNormBatchStat in eval): the mean and biased variance over "
        "every dim but the channels, in float32 for a half input, then the affine map, rounded once to the "
        "input's dtype; other calls run the op. Eager and dynamo keep the op (guarded helper).",
        when_literals=(("running_mean", 1, None), ("running_var", 2, None), ("training", 5, True)),
        rule="ONX519", repairs_error=r"batch_size and channel_size must be non-None",
        proof=Proof("torch.nn.functional.batch_norm(a, None, None, w, c, True, 1.0, 1e-5)",
                    "_onnx_batch_norm_stats(a, None, None, w, c, True, 1.0, 1e-5)",
                    "(randn(g, b, 3, 4, 5), randn(g, 3), randn(g, 3))",
                    params="a, w, c", static=(1, 2), decomposition_tol=1e-5),
    ),
    Decomposition(
        "layer_norm", ("torch.nn.functional.layer_norm", "torch.layer_norm"), True, ("layer_norm input shape",), (),
        "Mean and biased variance over the last len(normalized_shape) dimensions, as ATen, so that "
        "only the shape's length is read: the legacy exporter fails when normalized_shape comes "
        "from the input's sizes (`F.layer_norm(x, x.shape[-1:])`, a list of traced sizes). Reported "
        "only for such a shape. Eager and dynamo keep the op (guarded helper).",
        rule="ONX519",
        proof=Proof("torch.nn.functional.layer_norm(a, a.shape[-1:], c, c)", "_onnx_layer_norm(a, a.shape[-1:], c, c)",
                    "(randn(g, b, 3, 6), randn(g, 6))", params="a, c", static=(1,), decomposition_tol=1e-5),
    ),
    Decomposition(
        "bilinear", ("torch.nn.functional.bilinear",), True, (), (),
        "einsum('...i,oij,...j->...o') plus the bias: ATen's composite contraction (the legacy "
        "exporter has no symbolic for aten::bilinear; `nn.Bilinear`'s forward). Eager and dynamo "
        "keep the op (guarded helper).",
        rule="ONX519",
        proof=Proof("torch.nn.functional.bilinear(a, c, w, d)", "_onnx_bilinear(a, c, w, d)",
                    "(randn(g, b, 3), randn(g, b, 4), randn(g, 5, 3, 4), randn(g, 5))",
                    params="a, c, w, d", static=(2, 3), decomposition_tol=1e-5),
    ),
    Decomposition(
        "interpolate", ("torch.nn.functional.interpolate",), True,
        ("interpolate area down", "interpolate nearest-exact", "interpolate bilinear antialias",
         "interpolate bicubic antialias", "interpolate bilinear antialias align_corners",
         "interpolate bicubic antialias align_corners"), (PYTORCH + "41009", "https://github.com/microsoft/onnxscript/pull/2916"),
        "mode='area' (1-D and 2-D inputs) is adaptive average pooling to the output size, torch's "
        "definition; mode='nearest-exact' (2-D inputs) is index_select with the source indices "
        "torch's kernel computes, floor((j + 0.5) * scale) in float32 (bit-identical; constants "
        "for a given size, computed in the graph from the input's size for a scale factor). Other modes, 1-D nearest-exact (torch's 1-D kernel rounds "
        "differently) and 3-D inputs run torch's interpolate unchanged. antialias=True "
        "(bilinear/bicubic, 2-D) is torch's separable filter as two "
        "products with (out, in) weight matrices, constants for static sizes and computed with "
        "tensor ops for a size the export keeps symbolic (DINOv2's position grid resized to the "
        "input's patch grid, dynamic height and width; a scale the legacy tracer holds as a tensor, "
        "computed from the input's sizes, floors the output size as a tensor too: the tracer divides in float32 "
        "where torch floors a double, so for some sizes, 422 of 16,376 heights x widths for `16 / h`, that size is "
        "one off eager's); with an output width of 1 and a "
        "resized height torch's kernel repeats its first row (measured), so that case runs torch. "
        "A scale torch.export keeps symbolic (`scale.item()`, RIFE's flow pyramid: torch.export "
        "refuses a SymFloat scale) is the resize as interpolation matrices built from it "
        "(_onnx_interpolate_scaled: linear, bilinear, bicubic; not nearest), the output size "
        "following the scale's value in the graph. With align_corners=True (its scale (in - 1) / (out - 1)) "
        "the weights are used under dynamo too, whose own Resize computes other ones (silently wrong).",
        requires=("adaptive_avg_pool2d", "resample_antialias"),
        error_bound="area and nearest-exact: none (float rounding / bit-identical); antialias=True: "
        "max abs error 8.2e-6 on inputs in [0, 1] and 1.4e-5 on standard-normal inputs (float64 "
        "weights where torch computes them in float32; measured by "
        "tests/test_decompositions_legacy_structural.py)",
        aten=("_upsample_nearest_exact2d", "_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"),
        rule="ONX519", repairs_error=r"upsample_\w+\(\): argument 'scale_factors' must be tuple of floats, but found "
        r"element of type SymFloat",
        proof=Proof(
            "(torch.nn.functional.interpolate(a, size=(3, 5), mode='area') "
            "+ torch.nn.functional.interpolate(a, size=(3, 5), mode='bicubic', antialias=True), "
            "torch.nn.functional.interpolate(a, scale_factor=1.7, mode='nearest-exact') "
            "+ torch.nn.functional.interpolate(a, scale_factor=1.7, mode='bilinear', antialias=True))",
            "(_onnx_interpolate(a, size=(3, 5), mode='area') "
            "+ _onnx_interpolate(a, size=(3, 5), mode='bicubic', antialias=True), "
            "_onnx_interpolate(a, scale_factor=1.7, mode='nearest-exact') "
            "+ _onnx_interpolate(a, scale_factor=1.7, mode='bilinear', antialias=True))",
            "(randn(g, b, 2, 8, 7),)",
            decomposition_tol=5e-6,
        ),
    ),
    Decomposition(
        "conv1d", ("torch.nn.functional.conv1d",), True, ("conv1d dilation padding same",),
        ("https://github.com/microsoft/onnxruntime/issues/20582",),
        "padding='same' becomes an explicit F.pad of dilation * (kernel - 1) zeros (the smaller "
        "half on the left, as torch) and padding=0; other calls are torch's conv1d unchanged. "
        "`onnxfix export` substitutes it where onnxruntime refuses the model (a Conv1d layer in "
        "an nn.Sequential, which no source call shows).",
        rule="ONX519", repairs_error=r"Dilation not supported for AutoPadType",
        proof=Proof(
            "torch.nn.functional.conv1d(a, w, c, padding='same', dilation=3)",
            "_onnx_conv1d(a, w, c, padding='same', dilation=3)",
            "(randn(g, b, 2, 11), randn(g, 4, 2, 4), randn(g, 4))",
            params="a, w, c", static=(1, 2), decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "take_along_dim", ("torch.take_along_dim", "Tensor.take_along_dim"), True, ("take_along_dim",), (),
        "gather after broadcasting input and indices in every dimension but `dim` (flattened "
        "input when dim is None).",
        rule="ONX519",
        proof=Proof(
            "torch.take_along_dim(a, i, dim=1) + torch.take_along_dim(a, i[:1], 1)",
            "_onnx_take_along_dim(a, i, dim=1) + _onnx_take_along_dim(a, i[:1], 1)",
            "(randn(g, b, 5), torch.randint(0, 5, (b, 3), generator=g))",
            params="a, i",
        ),
    ),
    Decomposition(
        "diag_embed", ("torch.diag_embed", "Tensor.diag_embed"), True, ("diag_embed",), (),
        "torch.where over an identity mask, zero-padded by |offset|, then moved to (dim1, dim2); "
        "the last dimension's size must be static.",
        rule="ONX519",
        proof=Proof(
            "torch.diag_embed(a, 1) + torch.diag_embed(a, -1, 0, 2).transpose(0, 1)",
            "_onnx_diag_embed(a, 1) + _onnx_diag_embed(a, -1, 0, 2).transpose(0, 1)",
            "(randn(g, b, 4),)",
        ),
    ),
    Decomposition(
        "diag", ("torch.diag", "Tensor.diag"), True, ("diag",),
        (PYTORCH + "98205", "https://github.com/onnx/onnx/issues/5115"),
        "A vector: _onnx_diag_embed; a matrix: torch.diagonal (which the legacy exporter translates).",
        requires=("diag_embed",),
        rule="ONX519",
        proof=Proof(
            "(torch.diag(a[0], 2), torch.diag(a, -1))",
            "(_onnx_diag(a[0], 2), _onnx_diag(a, -1))",
            "(randn(g, b, 5),)",
        ),
    ),
    Decomposition(
        "block_diag", ("torch.block_diag",), True, ("block_diag",), (),
        "Each block zero-padded to the full width, rows concatenated; dtypes promoted as torch.",
        rule="ONX519",
        proof=Proof(
            "torch.block_diag(a, c, c[0])",
            "_onnx_block_diag(a, c, c[0])",
            "(randn(g, b, 3), randn(g, 2, 2))",
            params="a, c", static=(1,),
        ),
    ),
    Decomposition(
        "cartesian_prod", ("torch.cartesian_prod",), True, ("cartesian_prod",), (),
        "Each 1-D tensor broadcast over the product grid and flattened, columns stacked.",
        rule="ONX519",
        proof=Proof(
            "torch.cartesian_prod(a[0], c, c)",
            "_onnx_cartesian_prod(a[0], c, c)",
            "(randn(g, b, 3), randn(g, 2))",
            params="a, c", static=(1,),
        ),
    ),
    Decomposition(
        "rot90", ("torch.rot90", "Tensor.rot90"), True, ("rot90",), (),
        "torch's definition: flip and transpose (k mod 4); k and dims must be Python values.",
        rule="ONX519",
        proof=Proof(
            "torch.rot90(a, 1, (1, 2)) + torch.rot90(a, -1, (1, 2)) + torch.rot90(a.transpose(1, 2), 2, (1, 2))",
            "_onnx_rot90(a, 1, (1, 2)) + _onnx_rot90(a, -1, (1, 2)) + _onnx_rot90(a.transpose(1, 2), 2, (1, 2))",
            "(randn(g, b, 4, 4),)",
        ),
    ),
    Decomposition(
        "msort", ("torch.msort", "Tensor.msort"), True, ("msort",), (),
        "torch.sort(input, dim=0).values (NaN last, as torch).",
        rule="ONX519",
        proof=Proof("torch.msort(a.T)", "_onnx_msort(a.T)", "(randn(g, b, 6),)"),
    ),
    Decomposition(
        "isin", ("torch.isin",), True, ("isin",), (),
        "Pairwise equality against the flattened test elements, any(); O(N * M) memory.",
        rule="ONX519", scripted="({elements}.unsqueeze(-1) == {test_elements}.reshape(-1)).any(-1)",
        proof=Proof(
            "torch.isin(i, j)",
            "_onnx_isin(i, j)",
            "(torch.randint(0, 6, (b, 8), generator=g), torch.randint(0, 6, (3,), generator=g))",
            params="i, j", static=(1,),
        ),
    ),
    Decomposition(
        "fftshift", ("torch.fft.fftshift",), True, ("fft.fftshift",), (),
        "A roll by half of each size (rounded down) as two slices and a concatenation per "
        "dimension (torch.roll by sizes read from the input does not export with legacy); real "
        "or integer inputs (ONNX has no complex tensors).",
        rule="ONX519",
        proof=Proof(
            "torch.fft.fftshift(a, dim=(1, 2)) + torch.fft.fftshift(a)[:1]",
            "_onnx_fftshift(a, dim=(1, 2)) + _onnx_fftshift(a)[:1]",
            "(randn(g, b, 5, 4),)",
        ),
    ),
    Decomposition(
        "histc", ("torch.histc", "Tensor.histc"), True, ("histc",), (),
        "torch's bin arithmetic int((x - low) * bins / (high - low)) in the input's dtype, values "
        "outside [low, high] and NaN skipped, then one comparison per bin (O(numel * bins) "
        "memory); min == max uses the data's range in the graph, as torch. Where torch raises (NaN "
        "in the data with min == max: the range is not finite) the helper counts nothing. Half types: "
        "each step in float32, cast to the half type, as ATen's half arithmetic rounds it (onnxruntime's "
        "float16 Sub / Mul / Div round otherwise); counts are exact, where ATen counts each thread's bins in the "
        "half type (a bin past 2048 float16 / 256 bfloat16 hits stops growing in eager)."
        " Eager keeps the op (guarded helper): bin positions from tensor ops, not ATen's histogram kernel: not shown to be the same floating ops.",
        rule="ONX519",
        proof=Proof(
            "(torch.histc(a, bins=7, min=-2, max=2), torch.histc(a, 5))",
            "(_onnx_histc(a, bins=7, min=-2, max=2), _onnx_histc(a, 5))",
            "(torch.randint(-12, 13, (b, 9), generator=g).float() / 4,)",
        ),
    ),
    Decomposition(
        "bitwise_or", ("torch.bitwise_or", "Tensor.bitwise_or"), True, ("bitwise_or int64",), (),
        "x + y - (x & y) on integers (exact with wrapping arithmetic); booleans keep |. The "
        "operator form `a | b` is rewritten only where an operand is known to be an integer "
        "tensor (bool masks export).",
        rule="ONX519",
        proof=Proof(
            "torch.bitwise_or(i, j) + torch.bitwise_or(i, 6)",
            "_onnx_bitwise_or(i, j) + _onnx_bitwise_or(i, 6)",
            "(torch.randint(-2**40, 2**40, (b, 9), generator=g), torch.randint(-50, 50, (b, 9), generator=g))",
            params="i, j",
        ),
    ),
    Decomposition(
        "bitwise_xor", ("torch.bitwise_xor", "Tensor.bitwise_xor"), True, ("bitwise_xor int64",), (),
        "x + y - 2 * (x & y) on integers (exact with wrapping arithmetic); booleans keep ^.",
        rule="ONX519",
        proof=Proof(
            "torch.bitwise_xor(i, j)",
            "_onnx_bitwise_xor(i, j)",
            "(torch.randint(-2**40, 2**40, (b, 9), generator=g), torch.randint(-50, 50, (b, 9), generator=g).int())",
            params="i, j",
        ),
    ),
    Decomposition(
        "bitwise_not", ("torch.bitwise_not", "Tensor.bitwise_not"), True, ("bitwise_not int64",), (),
        "-x - 1 on integers (exact with wrapping arithmetic, uint8 included); booleans keep ~.",
        rule="ONX519",
        proof=Proof(
            "(torch.bitwise_not(i), torch.bitwise_not(i > 0))",
            "(_onnx_bitwise_not(i), _onnx_bitwise_not(i > 0))",
            "(torch.randint(-2**40, 2**40, (b, 9), generator=g),)",
            params="i",
        ),
    ),
    Decomposition(
        "unfold", ("Tensor.unfold",), True, ("Tensor.unfold dynamic length",),
        (PYTORCH + "69889", "https://github.com/ailia-ai/ailia-models/pull/1894"),
        "Sliding windows as an index_select of window starts plus offsets (arange), reshaped with "
        "the window axis last: the same values (exact), with the length a graph value. The "
        "legacy exporter translates `Tensor.unfold` only when the unfolded dimension has a static "
        "size (\"Unsupported: ONNX export of operator Unfold, input size not accessible\"); "
        "dynamo exports it. Eager keeps the op (guarded helper): unfold returns a view, the "
        "gather a copy.",
        rule="ONX519", repairs_error=r"ONNX export of operator Unfold, input size not accessible",
        proof=Proof("a.unfold(2, 4, 3).sum(-1)", "_onnx_unfold(a, 2, 4, 3).sum(-1)", "(randn(g, b, 3, 14),)"),
    ),
    Decomposition(
        "fold", ("torch.nn.functional.fold",), True, ("fold dynamic blocks",),
        ("https://github.com/gemelo-ai/vocos/issues/38",),
        "Overlap-add as one scatter_add into the zero-padded output (kernel entries and blocks "
        "mapped to their pixels with arange), then the padding cropped. The legacy exporter's "
        "col2im fails when the output size or block count is read from the input (\"'NoneType' "
        "object is not subscriptable\"); dynamo exports it. Eager keeps the op (guarded helper): "
        "scatter_add adds overlapping entries in another order than ATen's col2im.",
        rule="ONX519",
        proof=Proof(
            "torch.nn.functional.fold(a, (5, 9), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))",
            "_onnx_fold(a, (5, 9), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))",
            "(randn(g, b, 12, 21),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "max_unpool2d", ("torch.nn.functional.max_unpool2d",), True, ("max_unpool2d",),
        (PYTORCH + "25088", PYTORCH + "43367", PYTORCH + "85388"),
        "One scatter of the pooled values into zeros of the output size, at the flat positions "
        "max_pool2d(return_indices=True) recorded (SegNet's decoder). The legacy exporter has no "
        "symbolic for aten::max_unpool2d; dynamo exports it. Eager keeps the op (guarded helper): "
        "for repeated indices either write may win.",
        requires=("max_unpool_size",), rule="ONX519",
        proof=Proof(
            "torch.nn.functional.max_unpool2d(*torch.nn.functional.max_pool2d(a, 3, 2, 1, return_indices=True), 3, 2, 1, "
            "a.shape[-2:])",
            "_onnx_max_unpool2d(*torch.nn.functional.max_pool2d(a, 3, 2, 1, return_indices=True), 3, 2, 1, a.shape[-2:])",
            "(randn(g, b, 3, 8, 9),)",
        ),
    ),
    Decomposition(
        "max_unpool1d", ("torch.nn.functional.max_unpool1d",), True, ("max_unpool1d",), (),
        "The 2-D helper over a height of 1.", requires=("max_unpool2d",),
        rule="ONX519",
        proof=Proof(
            "torch.nn.functional.max_unpool1d(*torch.nn.functional.max_pool1d(a, 2, return_indices=True), 2)",
            "_onnx_max_unpool1d(*torch.nn.functional.max_pool1d(a, 2, return_indices=True), 2)",
            "(randn(g, b, 3, 10),)",
        ),
    ),
    Decomposition(
        "max_unpool3d", ("torch.nn.functional.max_unpool3d",), True, (), (PYTORCH + "55411",),
        "The 2-D helper over depth and height merged: a 3-D flat index is the 2-D one of a (depth x "
        "height, width) plane (a 3-D SegNet's decoder). The legacy exporter has no symbolic for "
        "aten::max_unpool3d; dynamo exports it. Eager keeps the op (guarded helper).",
        requires=("max_unpool2d", "max_unpool_size"),
        rule="ONX519",
        proof=Proof(
            "torch.nn.functional.max_unpool3d(*torch.nn.functional.max_pool3d(a, 2, 2, return_indices=True), 2, 2)",
            "_onnx_max_unpool3d(*torch.nn.functional.max_pool3d(a, 2, 2, return_indices=True), 2, 2)",
            "(randn(g, b, 2, 4, 6, 4),)",
        ),
    ),
    Decomposition(
        "embedding", ("torch.nn.functional.embedding",), True, ("embedding max_norm",),
        (PYTORCH + "72738",),
        "With a max_norm (nn.Embedding(..., max_norm=1.0)): the looked-up rows scaled by "
        "max_norm / (norm + 1e-7) where their norm exceeds max_norm, as eager renormalises them in "
        "the weight before the lookup. The legacy exporter drops the renormalisation (the model "
        "gathers the weight as it was: silently wrong for rows eager had not renormalised before "
        "the export); dynamo exports it. The norm is computed in the rows' dtype (ATen's in "
        "double): equal up to float rounding. Reported only when max_norm is passed (nn.Embedding: "
        "to its constructor). Eager keeps the op (guarded helper), writes into the weight included.",
        when_present=("max_norm", 3),
        rule="ONX518",
        proof=Proof(
            "torch.nn.functional.embedding(i, w * 4, max_norm=1.0) + "
            "torch.nn.functional.embedding(i, w, padding_idx=0, max_norm=1.5, norm_type=1.0)",
            "_onnx_embedding(i, w * 4, max_norm=1.0) + _onnx_embedding(i, w, padding_idx=0, max_norm=1.5, norm_type=1.0)",
            "(ints(g, 0, 6, b, 4), randn(g, 6, 3))",
            params="i, w", static=(1,), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "embedding_bag", ("torch.nn.functional.embedding_bag",), True,
        ("embedding_bag padding_idx", "embedding_bag padding_idx offsets"),
        (PYTORCH + "128930",),
        "With a padding_idx: the bag of each looked-up row (a 2-D input's row, or the offsets run "
        "of a 1-D one), then scatter_add of the rows with the padding entries masked out; mean "
        "divides by the count of the others and max is a scatter amax, empty bags give zeros. The "
        "legacy exporter refuses a 2-D input (\"embedding_bag with padding_idx\") and exports "
        "offsets silently wrong (the padding rows counted); dynamo exports it. Reported only when "
        "padding_idx is passed (nn.EmbeddingBag: to its constructor); max_norm runs the op. Eager "
        "keeps the op (guarded helper): the bags are summed in another order.",
        when_present=("padding_idx", 10),
        rule="ONX519", repairs_error=r"embedding_bag with padding_idx",
        proof=Proof(
            "torch.nn.functional.embedding_bag(i, w, mode='mean', padding_idx=0) + "
            "torch.nn.functional.embedding_bag(i, w, mode='max', padding_idx=0)",
            "_onnx_embedding_bag(i, w, mode='mean', padding_idx=0) + _onnx_embedding_bag(i, w, mode='max', padding_idx=0)",
            "(ints(g, 0, 6, b, 4), randn(g, 6, 3))",
            params="i, w", static=(1,), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "scaled_dot_product_attention", ("torch.nn.functional.scaled_dot_product_attention",), True,
        ("sdpa enable_gqa",), (PYTORCH + "162258",),
        "enable_gqa=True (fewer key/value heads than query heads): each key/value head expanded "
        "to its group of query heads (expand + reshape, no copy in the graph's semantics), then "
        "the attention without enable_gqa, which the legacy exporter translates; dynamo exports "
        "it. Eager keeps the op (guarded helper).",
        when_literals=(("enable_gqa", None, True),),
        rule="ONX519", repairs_error=r"scaled_dot_product_attention not implemented if enable_gqa is True",
        proof=Proof(
            "torch.nn.functional.scaled_dot_product_attention(a, c, d, is_causal=True, enable_gqa=True)",
            "_onnx_scaled_dot_product_attention(a, c, d, is_causal=True, enable_gqa=True)",
            "(randn(g, b, 4, 5, 8), randn(g, b, 2, 5, 8), randn(g, b, 2, 5, 8))",
            params="a, c, d", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "multi_head_attention_forward", ("torch.nn.functional.multi_head_attention_forward",), True, (),
        (PYTORCH + "120075", PYTORCH + "122321", PYTORCH + "117209", PYTORCH + "143107"),
        "nn.MultiheadAttention's packed in-projection as three projections with the packed weight's "
        "thirds (torch's own use_separate_proj_weight path): the legacy exporter folds the length "
        "read after the packed projection to the example's, and onnxruntime then refuses another "
        "sequence length (\"The input tensor cannot be reshaped to the requested shape\"). Export "
        "time only, keyed on that error (the call is inside the layer, no source shows it). Eager "
        "and dynamo keep the call.",
        static=False, rule="ONX519", repairs_error=r"input_shape_size == requested_shape_size",
        proof=Proof(
            "torch.nn.functional.multi_head_attention_forward(a, a, a, 8, 2, w, c, None, None, False, 0.0, o, p, "
            "training=False)[0] + torch.nn.functional.multi_head_attention_forward(a, a, a, 8, 2, w, c, None, "
            "None, False, 0.0, o, p, training=False, need_weights=False)[0]",
            "_onnx_multi_head_attention_forward(a, a, a, 8, 2, w, c, None, None, False, 0.0, o, p, "
            "training=False)[0] + _onnx_multi_head_attention_forward(a, a, a, 8, 2, w, c, None, "
            "None, False, 0.0, o, p, training=False, need_weights=False)[0]",
            "(randn(g, b, 2, 8), randn(g, 24, 8), randn(g, 24), randn(g, 8, 8), randn(g, 8))",
            params="a, w, c, o, p", static=(1, 2, 3, 4), decomposition_tol=1e-5,
        ),
    ),
)
SUPPORT: tuple[str, ...] = ("resample_antialias", "adaptive_bin_means", "max_unpool_size")  # helpers that decompose nothing on their own
