import torch


def _onnx_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                      recompute_scale_factor=None, antialias=False):
    # Only what the legacy exporter refuses is rewritten: mode="area" on 1-D/2-D inputs,
    # mode="nearest-exact" and antialias=True bilinear/bicubic on 2-D
    # inputs; every other call is torch's own interpolate. (torch's 1-D nearest-exact kernel
    # rounds source positions differently from its 2-D kernel.)
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.interpolate(input, size, scale_factor, mode, align_corners,
                                               recompute_scale_factor, antialias)
    factors = scale_factor if isinstance(scale_factor, (list, tuple)) else (scale_factor,)
    scaled = globals().get("_onnx_interpolate_scaled")  # loaded by the export-time repair, not a source fix
    if (scaled is not None and torch.compiler.is_exporting() and size is None
            and any(isinstance(f, torch.SymFloat) for f in factors)):
        # a scale the export keeps symbolic (read out of a tensor: torch.export refuses a SymFloat
        # scale, "must be tuple of floats"): the resize built from it, where the helper can
        return scaled(input, scale_factor, mode=mode, align_corners=align_corners, antialias=antialias,
                      recompute_scale_factor=recompute_scale_factor)
    spatial = input.dim() - 2
    # the dynamo exporter translates the antialiased resize itself (its own Resize); the weights
    # here are for the legacy exporter, which has no symbolic (TEED: dynamo OK -> ORT-FAILS
    # with the decomposition, measured), and for align_corners=True, where dynamo's Resize
    # computes other weights than torch's kernel (onnxscript#2916: silently wrong)
    smooth = antialias and mode in ("bilinear", "bicubic") and (bool(align_corners) or not torch.compiler.is_exporting())
    if not (mode == "area" and spatial in (1, 2) or spatial == 2 and (mode == "nearest-exact" or smooth)):
        return torch.nn.functional.interpolate(input, size, scale_factor, mode, align_corners,
                                               recompute_scale_factor, antialias)
    sizes = input.shape[2:]
    scales = [None] * spatial
    if size is not None:
        out_sizes = list(size) if isinstance(size, (list, tuple)) else [size] * spatial
    else:
        factors = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * spatial
        # torch floors n * factor; a size or factor the legacy tracer holds as a tensor (a scale
        # computed from the input's sizes) stays one, so the output size follows the input's (the
        # tracer's factor is float32 where torch floors a double: one off for some sizes)
        out_sizes = [torch.floor(n * f).long() if isinstance(n * f, torch.Tensor) else int(n * f)
                     for n, f in zip(sizes, factors)]
        if not recompute_scale_factor:
            scales = factors  # torch then maps output to input positions with 1 / factor
    if mode == "area" and size is None:
        # the output size follows the input's, which may be dynamic in the export: floor(n * f)
        # from the size as a tensor (legacy) or kept symbolic (dynamo), not a number of this trace
        shape = input.shape[2:] if torch.compiler.is_exporting() else torch._shape_as_tensor(input)[2:]
        out_sizes = [torch.sym_int(n * f) if torch.compiler.is_exporting() else torch.floor(n.double() * f).long()
                     for n, f in zip(shape, factors)]
    if mode == "area":  # torch computes area as adaptive average pooling to the output size
        if spatial == 1:
            return _onnx_adaptive_avg_pool2d(input.unsqueeze(-2), (1, out_sizes[0])).squeeze(-2)
        return _onnx_adaptive_avg_pool2d(input, out_sizes)
    if smooth:
        if out_sizes[1] == 1 and out_sizes[0] != sizes[0]:  # torch's kernel copies the first
            # output row into every row in this case (measured): keep torch's own result
            return torch.nn.functional.interpolate(input, size, scale_factor, mode, align_corners,
                                                   recompute_scale_factor, antialias)
        return _onnx_resample_antialias(input, out_sizes, scales, mode, bool(align_corners))

    def float32(numerator, denominator):
        # numerator / denominator rounded to the nearest float32 (ties to even), as a Python
        # float: torch's kernel computes source positions in float32, Python floats are doubles.
        exponent = 0
        while numerator >= denominator << 24:
            denominator, exponent = denominator << 1, exponent + 1
        while numerator < denominator << 23:
            numerator, exponent = numerator << 1, exponent - 1
        mantissa, rest = divmod(numerator, denominator)
        if 2 * rest > denominator or (2 * rest == denominator and mantissa % 2):
            mantissa += 1
        return mantissa * 2.0 ** exponent

    # nearest-exact: output position j reads input floor((j + 0.5) * scale), as torch's kernel
    # (scale = input / output size in float32, or 1 / scale_factor). The indices are constants for
    # a given size, and computed in the graph for a scale factor.
    if size is None and None not in scales:
        # a scale factor: the output size follows the input's, dynamic in the export (Wan's VAE
        # upsampler, nn.Upsample(scale_factor=2.0, mode="nearest-exact")): the indices computed
        # in the graph, each the same float32 product and floor
        shape = input.shape[2:] if torch.compiler.is_exporting() else torch._shape_as_tensor(input)[2:]
        for axis in range(spatial):  # noqa: ONX603 - over the 1 or 2 spatial dimensions
            n, f = shape[axis], factors[axis]
            count = torch.sym_int(n * f) if torch.compiler.is_exporting() else torch.floor(n.double() * f).long()
            scale = float32(*(1.0 / scales[axis]).as_integer_ratio())
            positions = torch.arange(count, dtype=torch.float32, device=input.device)
            index = torch.clamp(torch.floor((positions + 0.5) * scale).long(), max=n - 1)
            input = input.index_select(2 + axis, index)
        return input
    for axis in range(spatial):  # noqa: ONX603 - over the 1 or 2 spatial dimensions
        length, count = sizes[axis], out_sizes[axis]
        scale = float32(length, count) if scales[axis] is None else float32(*(1.0 / scales[axis]).as_integer_ratio())
        index = [min(int(float32(*((j + 0.5) * scale).as_integer_ratio()) // 1), length - 1) for j in range(count)]
        input = input.index_select(2 + axis, torch.tensor(index, dtype=torch.long, device=input.device))
    return input
