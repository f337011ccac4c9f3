import torch


def _onnx_adaptive_avg_pool2d(input, output_size):
    # torch averages rows floor(i*H/oh) .. ceil((i+1)*H/oh) for output row i and the same
    # columns; bins may overlap or differ in size. A rectangle's mean is the mean of its row
    # means: the row bins' means, then the column bins' means of those (_onnx_adaptive_bin_means,
    # from the input's size as a tensor, so a size that is dynamic in the export stays so). The
    # output size is a number (or a size the export knows, as interpolate's).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_avg_pool2d(input, output_size)
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size, output_size)
    if all(isinstance(s, int) and s == 1 for s in output_size):  # global pooling (`--decompose` sees it too)
        return input.mean((-2, -1), keepdim=True)
    sizes = input.shape if torch.compiler.is_exporting() else torch._shape_as_tensor(input)
    for axis, out in ((-2, output_size[0]), (-1, output_size[1])):  # noqa: ONX603 - the two spatial axes
        if out is not None:  # None: that size kept
            input = _onnx_adaptive_bin_means(input, axis, out, sizes[axis])
    return input
