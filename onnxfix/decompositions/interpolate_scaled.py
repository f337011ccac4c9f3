import math

import torch


def _onnx_interpolate_scaled(input, scale_factor, mode="nearest", align_corners=None, antialias=False, **kwargs):
    # F.interpolate by a scale computed from sizes (ViT/DINOv2's position embeddings,
    # `scale_factor=((h + 0.1) / math.sqrt(n), ...)`). torch.export reads the scale as a constant,
    # so the exported model keeps the example's output size; while it exports, a bicubic or
    # bilinear resize of a 4-D tensor is two interpolation matrices built from the symbolic scale
    # (ATen's source index, coefficients and clamped taps; the output size floor(size * scale), as
    # ATen's). Eager (and the legacy exporter) run F.interpolate itself.
    factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor, scale_factor)
    if not torch.compiler.is_exporting() or input.dim() != 4 or mode not in ("bicubic", "bilinear") or antialias or kwargs:
        return torch.nn.functional.interpolate(input, scale_factor=scale_factor, mode=mode,
                                               align_corners=align_corners, antialias=antialias, **kwargs)
    height, width = input.shape[-2:]
    rows = _onnx_interpolation_matrix(height, math.floor(height * factors[0]), factors[0], mode, bool(align_corners), input)
    cols = _onnx_interpolation_matrix(width, math.floor(width * factors[1]), factors[1], mode, bool(align_corners), input)
    return rows @ input @ cols.transpose(0, 1)


def _onnx_interpolation_matrix(size, out_size, scale, mode, align_corners, like):
    # (out_size, size): row i holds the weights ATen's kernel gives the input samples for output i
    dst = torch.arange(out_size, device=like.device).to(like.dtype)
    if align_corners:
        src = dst * ((size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        src = (dst + 0.5) * (1.0 / scale) - 0.5
    cubic = mode == "bicubic"
    if not cubic:
        src = src.clamp(min=0)  # ATen clamps a linear source index at 0, not a cubic one
    base = torch.floor(src)
    t = src - base
    if cubic:  # the cubic convolution coefficients (A = -0.75) of the taps at -1, 0, 1, 2
        a = -0.75
        taps = ((((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a, -1),
                (((a + 2) * t - (a + 3)) * t * t + 1, 0),
                (((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1, 1),
                (((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a, 2))
    else:
        taps = ((1 - t, 0), (t, 1))
    columns = torch.arange(size, device=like.device)
    matrix = torch.zeros(out_size, size, dtype=like.dtype, device=like.device)
    for weight, offset in taps:
        index = (base.long() + offset).clamp(0, size - 1)  # out-of-range taps read the edge sample
        matrix = matrix + weight[:, None] * (index[:, None] == columns[None, :]).to(like.dtype)
    return matrix
