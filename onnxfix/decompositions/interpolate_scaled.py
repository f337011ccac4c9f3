import torch


def _onnx_interpolate_scaled(input, scale_factor, mode="nearest", align_corners=None, antialias=False, **kwargs):
    # F.interpolate by a scale computed from sizes (ViT/DINOv2's position embeddings,
    # `scale_factor=((h + 0.1) / math.sqrt(n), ...)`). torch.export reads the scale as a constant,
    # so the exported model keeps the example's output size; while it exports, a bicubic resize of
    # a 4-D floating tensor is two interpolation matrices built from the symbolic scale (ATen's
    # source index, coefficients and clamped taps, in float32 or float64 as ATen computes, the
    # output size floor(size * scale)). Eager (and the legacy exporter) run F.interpolate itself.
    factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor, scale_factor)
    if (not torch.compiler.is_exporting() or input.dim() != 4 or mode != "bicubic" or antialias or kwargs
            or not input.is_floating_point()):
        return torch.nn.functional.interpolate(input, scale_factor=scale_factor, mode=mode,
                                               align_corners=align_corners, antialias=antialias, **kwargs)
    compute = torch.float64 if input.dtype == torch.float64 else torch.float32
    height, width = input.shape[-2:]
    # floor(size * scale) of a non-negative product: its truncation, kept symbolic by sym_int
    rows = _onnx_interpolation_matrix(height, torch.sym_int(height * factors[0]), factors[0], bool(align_corners), compute,
                                      input.device)
    cols = _onnx_interpolation_matrix(width, torch.sym_int(width * factors[1]), factors[1], bool(align_corners), compute,
                                      input.device)
    return (rows @ input.to(compute) @ cols.transpose(0, 1)).to(input.dtype)


def _onnx_interpolation_matrix(size, out_size, scale, align_corners, dtype, device):
    # (out_size, size): row i holds the weights ATen's bicubic kernel gives the input samples for
    # output i: the cubic convolution coefficients (A = -0.75) of the taps at -1, 0, 1, 2 around the
    # source index, a tap outside the input reading the edge sample
    dst = torch.arange(out_size, device=device).to(dtype)
    if align_corners:  # an output of one sample reads the first (dst is 0 there)
        src = dst * ((size - 1) / torch.sym_max(out_size - 1, 1))
    else:
        src = (dst + 0.5) * (1.0 / scale) - 0.5
    base = torch.floor(src)
    t = src - base
    a = -0.75
    taps = ((((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a, -1),
            (((a + 2) * t - (a + 3)) * t * t + 1, 0),
            (((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1, 1),
            (((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a, 2))
    columns = torch.arange(size, device=device)
    matrix = torch.zeros(out_size, size, dtype=dtype, device=device)
    for weight, offset in taps:
        index = (base.long() + offset).clamp(0, size - 1)
        matrix = matrix + weight[:, None] * (index[:, None] == columns[None, :]).to(dtype)
    return matrix
