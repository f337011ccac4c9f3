import torch


def _onnx_adaptive_bin_maxima(input, axis, out):
    # Adaptive max pooling along one axis, torch's bins floor(i*L/out) .. ceil((i+1)*L/out): None
    # keeps the axis, 1 is one amax over it (any size, dynamic too), out > 1 unrolls its bins (the
    # axis's size must then be static). Max pooling is separable: a box's max is the max over one
    # axis's bins of the max over the next's (NaN propagates through amax in any order).
    if out is None:
        return input
    if out == 1:
        return input.amax(axis, keepdim=True)
    length = input.shape[axis]
    bins = []
    for i in range(out):  # noqa: ONX603 - unrolled on purpose: one bin per output cell
        start, stop = (i * length) // out, ((i + 1) * length + out - 1) // out
        bins.append(input.narrow(axis, start, stop - start).amax(axis, keepdim=True))
    return torch.cat(bins, axis)
