import torch


def _onnx_adaptive_avg_pool3d(input, output_size):
    # torch averages depth bins floor(i*D/od) .. ceil((i+1)*D/od), and the same rows and columns;
    # bins may overlap or differ in size. A box's mean is the mean of its plane means of row
    # means: the depth bins' means, then the row bins', then the column bins'
    # (_onnx_adaptive_bin_means, from the input's size as a tensor: dynamic sizes stay so). The
    # dynamo exporter has no translation of aten._adaptive_avg_pool3d; legacy refuses sizes that
    # do not divide.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_avg_pool3d(input, output_size)
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * 3
    if all(isinstance(s, int) and s == 1 for s in output_size):  # global pooling
        return input.mean((-3, -2, -1), keepdim=True)
    sizes = input.shape if torch.compiler.is_exporting() else torch._shape_as_tensor(input)
    for axis, out in zip((-3, -2, -1), output_size):  # noqa: ONX603 - three fixed axes
        if out is not None:  # None: that size kept
            input = _onnx_adaptive_bin_means(input, axis, out, sizes[axis])
    return input
