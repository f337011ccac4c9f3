import torch


def _onnx_adaptive_avg_pool3d(input, output_size):
    # torch averages depth bins floor(i*D/od) .. ceil((i+1)*D/od), and the same rows and columns;
    # bins may overlap or differ in size. A box's mean is the mean of its plane means of row
    # means: average each depth bin, then each row bin, then each column bin (unrolled over the
    # output size: it and the input's D, H, W must be static at export time). The dynamo exporter
    # has no translation of aten._adaptive_avg_pool3d; legacy refuses sizes that do not divide.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_avg_pool3d(input, output_size)
    if isinstance(output_size, int):
        output_size = (output_size,) * 3
    sizes = [input.shape[d - 3] if s is None else s for d, s in enumerate(output_size)]
    if sizes == [1, 1, 1]:  # global pooling
        return input.mean((-3, -2, -1), keepdim=True)
    for axis, out in zip((-3, -2, -1), sizes):  # noqa: ONX603 - three fixed axes
        length = input.shape[axis]
        bins = []
        for i in range(out):  # noqa: ONX603 - unrolled on purpose: one slice per output bin
            start, end = (i * length) // out, ((i + 1) * length + out - 1) // out
            bins.append(input.narrow(axis, start, end - start).mean(axis, keepdim=True))
        input = torch.cat(bins, axis)
    return input
