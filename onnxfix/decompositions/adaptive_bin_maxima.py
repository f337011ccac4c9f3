import torch


def _onnx_adaptive_bin_maxima(input, axis, out):
    # Adaptive max pooling along one axis, torch's bins floor(i*L/out) .. ceil((i+1)*L/out): None
    # keeps the axis, 1 is one amax over it (any size, dynamic too), a number of bins on an axis
    # of a plain size unrolls the bins. Max pooling is separable: a box's max is the max over one
    # axis's bins of the max over the next's (NaN propagates through amax in any order).
    if out is None:
        return input
    length = input.shape[axis]
    if isinstance(out, int) and isinstance(length, int):
        if out == 1:
            return input.amax(axis, keepdim=True)
        bins = []
        for i in range(out):  # noqa: ONX603 - unrolled on purpose: one bin per output cell
            start, stop = (i * length) // out, ((i + 1) * length + out - 1) // out
            bins.append(input.narrow(axis, start, stop - start).amax(axis, keepdim=True))
        return torch.cat(bins, axis)
    # A bin count or a length the export keeps symbolic (a SymInt under torch.export, a traced
    # size under the legacy exporter: SAFMN's `F.adaptive_max_pool2d(x, (h // 2, w // 2))`): each
    # bin's positions gathered into a row of the longest bin's width (at most ceil(L/out) + 1),
    # the row's tail repeating the bin's last position, which leaves its maximum as it is.
    positions = torch.arange(out, device=input.device).unsqueeze(1)
    start = positions * length // out
    stop = ((positions + 1) * length + out - 1) // out
    offsets = torch.arange((length + out - 1) // out + 1, device=input.device).unsqueeze(0)
    index = torch.minimum(start + offsets, stop - 1)  # (out, width)
    values = input.transpose(axis, -1)  # its own inverse (legacy writes movedim as an invalid Transpose)
    return values[..., index].amax(-1).transpose(axis, -1)
