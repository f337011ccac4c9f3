import torch


def _onnx_resample_antialias(input, out_sizes, scales, mode):
    # torch's antialiased bilinear/bicubic resize (align_corners=False) is separable: along each
    # spatial axis, output i is a normalised weighted sum of the inputs within `support` of its
    # centre, the filter stretched by the downscale factor. The weights depend on sizes only, so
    # they are constant (out, in) matrices here and the resize is two matrix products.
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
