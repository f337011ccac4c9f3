import torch


def _onnx_interpolate_scaled(input, scale_factor, mode="nearest", align_corners=None, antialias=False,
                             recompute_scale_factor=None, **kwargs):
    # F.interpolate by a scale the export keeps symbolic: computed from sizes (ViT/DINOv2's
    # position embeddings, `scale_factor=((h + 0.1) / math.sqrt(n), ...)`, which torch.export
    # otherwise reads as a constant: the model keeps the example's output size) or read out of a
    # tensor (RIFE's `scale.item()`: torch.export refuses a SymFloat scale outright). While it
    # exports, the resize of a 3-D or 4-D floating tensor is one interpolation matrix per resized
    # dim built from the symbolic scale (ATen's source index, weights and clamped taps, in float32,
    # or float64 as ATen computes for float64; the output size floor(size * scale)): linear,
    # bilinear and bicubic. The legacy exporter's tracer holds such a scale as a tensor, which
    # F.interpolate refuses ("upsample_bicubic2d() received an invalid combination of arguments"):
    # the same matrices, built from those tensors. Eager runs F.interpolate itself. (A scale
    # computed from a SymFloat, `1. / s`, or traced, is computed in float32: not ATen's double.)
    spatial = input.dim() - 2
    factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * max(spatial, 1)
    # not nearest: ATen's nearest kernels disagree on which index a size keeps (its 2-D kernel copies
    # an axis whose size stays and halves a doubled one only for small or channels-last outputs)
    resizable = (mode, spatial) in (("linear", 1), ("bilinear", 2), ("bicubic", 2))
    traced = torch.jit.is_tracing() and any(isinstance(factor, torch.Tensor) for factor in factors)
    # antialiased bilinear / bicubic (2-D, align_corners=False): torch's separable filter, its
    # weights built from the symbolic scale (_onnx_resample_antialias_weights)
    filtered = bool(antialias) and spatial == 2 and mode in ("bilinear", "bicubic") and not align_corners
    if (not (torch.compiler.is_exporting() or traced) or not resizable or (antialias and not filtered) or kwargs
            or len(factors) != spatial or not input.is_floating_point()):
        return torch.nn.functional.interpolate(input, scale_factor=scale_factor, mode=mode,
                                               align_corners=align_corners, antialias=antialias,
                                               recompute_scale_factor=recompute_scale_factor, **kwargs)
    compute = torch.float64 if input.dtype == torch.float64 else torch.float32
    matrices = []
    for size, factor in zip(input.shape[2:], factors):
        # floor(size * scale) of a non-negative product: its truncation, kept symbolic by sym_int;
        # with recompute_scale_factor the kernel maps positions by size / output size instead
        if traced:  # the traced scale and size: a graph value, floored in float64 as ATen does
            out_size = torch.floor(_onnx_float64(size) * _onnx_float64(factor)).long()
        elif isinstance(factor, torch.SymFloat) and not factor.node.has_hint():
            # read out of a tensor: torch.onnx computes SymFloat arithmetic in float32, ATen the
            # output size in float64 (10 * 0.7 floors to 6 in float64, 7 in float32)
            out_size = torch.floor(torch.scalar_tensor(size, dtype=torch.float64, device=input.device)
                                   * torch.scalar_tensor(factor, dtype=torch.float64, device=input.device)).long().item()
            torch._check(out_size >= 0)
        else:
            out_size = torch.sym_int(size * factor)
        scale = None if recompute_scale_factor else factor
        if filtered:  # (the filter's weights: resample_antialias's helper, written beside this one for it)
            weights = globals()["_onnx_resample_antialias_weights"]
            matrices.append(weights(size, out_size, scale, 2 if mode == "bilinear" else 4).to(compute))
            continue
        matrices.append(_onnx_resize_matrix(mode, size, out_size, scale, bool(align_corners), compute, input.device))
    result = input.to(compute) @ matrices[-1].transpose(0, 1)
    if spatial == 2:
        result = matrices[0] @ result
    return result.to(input.dtype)


def _onnx_resize_matrix(mode, size, out_size, scale, align_corners, dtype, device):
    # (out_size, size): row i holds the weights ATen's kernel gives the input samples for output i
    if mode == "bicubic":
        return _onnx_interpolation_matrix(size, out_size, scale, align_corners, dtype, device)
    dst = torch.arange(out_size, device=device)
    columns = torch.arange(size, device=device)
    # the linear kernels copy an axis whose size stays, whatever the scale (measured on every CPU
    # path: 1-D, 2-D, channels-last, float64): a tensor test here, not a Python one of sizes the
    # export keeps symbolic
    same = _onnx_as_size_tensor(out_size, device) == size
    # ATen's ratio: 1 / scale (given one) or size / output size, rounded to the compute dtype
    ratio = (1.0 / scale) if scale is not None else size / _onnx_at_least_one(out_size)
    if align_corners:  # an output of one sample reads the first (dst is 0 there)
        src = dst.to(dtype) * ((size - 1) / _onnx_at_least_one(out_size - 1))
    else:  # a negative source position reads the first sample
        src = ((dst.to(dtype) + 0.5) * ratio - 0.5).clamp(min=0)
    low = torch.floor(src).long().clamp(max=size - 1)
    weight = (src - low.to(dtype)).clamp(0, 1)
    high = low + (low < size - 1).long()
    matrix = ((1 - weight)[:, None] * (low[:, None] == columns[None, :]).to(dtype)
              + weight[:, None] * (high[:, None] == columns[None, :]).to(dtype))
    return torch.where(same, (dst[:, None] == columns[None, :]).to(dtype), matrix)


def _onnx_interpolation_matrix(size, out_size, scale, align_corners, dtype, device):
    # (out_size, size): row i holds the weights ATen's bicubic kernel gives the input samples for
    # output i: the cubic convolution coefficients (A = -0.75) of the taps at -1, 0, 1, 2 around the
    # source index, a tap outside the input reading the edge sample
    dst = torch.arange(out_size, device=device).to(dtype)
    if align_corners:  # an output of one sample reads the first (dst is 0 there)
        src = dst * ((size - 1) / _onnx_at_least_one(out_size - 1))
    else:
        ratio = (1.0 / scale) if scale is not None else size / _onnx_at_least_one(out_size)
        src = (dst + 0.5) * ratio - 0.5
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


def _onnx_at_least_one(n):
    # max(n, 1) of a size: a SymInt (torch.export) or a 0-d tensor (the legacy tracer)
    return n.clamp(min=1) if isinstance(n, torch.Tensor) else torch.sym_max(n, 1)


def _onnx_as_size_tensor(n, device):
    return n.to(device) if isinstance(n, torch.Tensor) else torch.scalar_tensor(n, dtype=torch.int64, device=device)


def _onnx_float64(value):
    # a traced size or scale (a tensor) or a Python number, as a float64 tensor
    return value.double() if isinstance(value, torch.Tensor) else torch.full((), value, dtype=torch.float64)
