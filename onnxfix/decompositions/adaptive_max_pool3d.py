import torch


def _onnx_adaptive_max_pool3d(input, output_size, return_indices=False):
    # Max pooling is separable: a box's max is the max over its depth bin of the max over its row
    # bin of the max over its column bin (NaN propagates through amax in any order). Per axis:
    # output size None keeps the axis, 1 is one amax over it (any size, dynamic too), n > 1 takes
    # torch's bins floor(i*L/n) .. ceil((i+1)*L/n), unrolled (that axis's size must be static).
    # Neither exporter translates a 3-D adaptive max pool (a kept axis: legacy's "output_size is
    # not constant"; dynamo has no aten.adaptive_max_pool3d).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_max_pool3d(input, output_size, return_indices)
    if return_indices:  # positions in the whole box: not from separate axes
        return torch.nn.functional.adaptive_max_pool3d(input, output_size, return_indices)
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * 3
    for axis, out in zip((-3, -2, -1), output_size):  # noqa: ONX603 - three fixed axes
        if out is None:
            continue
        if out == 1:
            input = input.amax(axis, keepdim=True)
            continue
        length = input.shape[axis]
        bins = []
        for i in range(out):  # noqa: ONX603 - unrolled on purpose: one bin per output cell
            start, stop = (i * length) // out, ((i + 1) * length + out - 1) // out
            bins.append(input.narrow(axis, start, stop - start).amax(axis, keepdim=True))
        input = torch.cat(bins, axis)
    return input
