import torch


def _onnx_resample_antialias(input, out_sizes, scales, mode, align_corners=False):
    # torch's antialiased bilinear/bicubic resize is separable: along each spatial axis, output
    # i is a normalised weighted sum of the inputs within `support` of its centre, the filter
    # stretched by the downscale factor. The weights depend on sizes only, so they are constant
    # (out, in) matrices here and the resize is two matrix products. align_corners=True changes
    # the scale only, (in - 1) / (out - 1) (0 for one output), as ATen's area_pixel_compute_scale
    # (a scale factor is then ignored); the centres stay scale * (i + 0.5).
    taps = 2 if mode == "bilinear" else 4

    def kernel(x):
        x = abs(x)
        if mode == "bilinear":
            return 1.0 - x if x < 1.0 else 0.0
        if x < 1.0:  # Keys cubic with a = -0.5 (torch's antialias filter)
            return (1.5 * x - 2.5) * x * x + 1.0
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0 if x < 2.0 else 0.0

    for axis in range(2):  # noqa: ONX603 - height, then width
        length, count = input.shape[2 + axis], out_sizes[axis]
        if not (isinstance(length, int) and isinstance(count, int)):  # a size only the export knows
            matrix = _onnx_resample_antialias_weights(length, count, scales[axis], taps, align_corners).to(input.dtype)
            input = matrix @ input if axis == 0 else input @ matrix.T
            continue
        if align_corners:
            scale = (length - 1) / (count - 1) if count > 1 else 0.0
        else:
            scale = length / count if scales[axis] is None else 1.0 / scales[axis]
        support = taps / 2 * scale if scale >= 1.0 else taps / 2
        stretch = 1.0 / scale if scale >= 1.0 else 1.0
        widest = int(-(-support // 1)) * 2 + 1  # torch caps a window at 2 * ceil(support) + 1
        rows = []
        for i in range(count):  # noqa: ONX603 - one row of constant weights per output index
            center = scale * (i + 0.5)
            first = max(int(center - support + 0.5), 0)
            width = min(max(min(int(center + support + 0.5), length) - first, 0), widest)
            weights = [kernel((j + first - center + 0.5) * stretch) for j in range(width)]
            total = sum(weights)
            row = [0.0] * length
            for j in range(width):  # noqa: ONX603 - Python list, not a tensor loop
                row[first + j] = weights[j] / total if total != 0.0 else weights[j]
            rows.append(row)
        matrix = torch.tensor(rows, dtype=input.dtype, device=input.device)
        input = matrix @ input if axis == 0 else input @ matrix.T
    return input


def _onnx_resample_antialias_weights(length, count, factor, taps, align_corners=False):
    # The same (count, length) weights as tensors, for sizes the exporter keeps symbolic (a ViT's
    # position grid resized to the input's patch grid): every row and column at once, in float64,
    # the window [first, first + width) as a mask.
    def scalar(value):
        return value.to(torch.float64) if isinstance(value, torch.Tensor) else torch.full((), value, dtype=torch.float64)

    size_in, size_out = scalar(length), scalar(count)
    # a factor the legacy tracer holds as a tensor: its reciprocal in float64, as ATen computes it
    if align_corners:
        scale = torch.where(size_out > 1, (size_in - 1) / torch.clamp(size_out - 1, min=1), torch.zeros_like(size_in))
    else:
        scale = size_in / size_out if factor is None else (
            1.0 / scalar(factor) if isinstance(factor, torch.Tensor) else torch.full((), 1.0 / factor, dtype=torch.float64))
    down = scale >= 1.0
    support = torch.where(down, taps / 2 * scale, torch.full_like(scale, taps / 2))
    stretch = torch.where(down, 1.0 / scale, torch.ones_like(scale))
    widest = torch.ceil(support) * 2 + 1
    centre = scale * (torch.arange(count, dtype=torch.float64) + 0.5).unsqueeze(1)
    first = torch.clamp(torch.floor(centre - support + 0.5), min=0)
    last = torch.minimum(torch.floor(centre + support + 0.5), size_in)
    width = torch.clamp(torch.minimum(last - first, widest), min=0)
    column = torch.arange(length, dtype=torch.float64).unsqueeze(0)
    x = ((column - centre + 0.5) * stretch).abs()
    if taps == 2:
        weight = torch.clamp(1.0 - x, min=0.0)
    else:  # Keys cubic with a = -0.5 (torch's antialias filter)
        weight = torch.where(x < 1.0, (1.5 * x - 2.5) * x * x + 1.0,
                             torch.where(x < 2.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, torch.zeros_like(x)))
    weight = torch.where((column >= first) & (column < first + width), weight, torch.zeros_like(weight))
    total = weight.sum(1, keepdim=True)
    return torch.where(total != 0.0, weight / torch.where(total != 0.0, total, torch.ones_like(total)), weight)
