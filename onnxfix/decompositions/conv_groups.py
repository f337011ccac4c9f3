import torch


def _onnx_conv_groups(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # groups read from the input's sizes: a per-sample filter run as one grouped convolution
    # (DMNet's `F.conv2d(x.view(1, b * c, h, w), filters, groups=b * c)`, SiamRPN's depthwise
    # cross-correlation). ONNX's Conv takes a constant group count; the dynamo exporter fails
    # ("Error calling operator 'Conv'") and the legacy one bakes the export's count in. Here the
    # groups are an axis and the convolution a sum over the kernel's offsets (static: the
    # kernel's own sizes): out[n, g, o] = sum over the group's channels c and offsets k of
    # x[n, g, c, k * dilation + stride * position] * w[g, o, c, k]. Eager, and any call whose
    # groups are a plain number, run torch's convolution.
    if not torch.onnx.is_in_onnx_export():
        return (torch.nn.functional.conv1d, torch.nn.functional.conv2d, torch.nn.functional.conv3d)[weight.dim() - 3](
            input, weight, bias, stride, padding, dilation, groups)
    rank = weight.dim() - 2
    if isinstance(groups, int) or isinstance(padding, str):
        convolution = (torch.nn.functional.conv1d, torch.nn.functional.conv2d, torch.nn.functional.conv3d)[rank - 1]
        return convolution(input, weight, bias, stride, padding, dilation, groups)

    def per_axis(value):  # torch takes a number, or a sequence of one or rank entries
        value = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        return value * rank if len(value) == 1 else value

    if input.dim() == rank + 1:  # unbatched, as torch's convolutions take it
        return _onnx_conv_groups(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    stride, padding, dilation = per_axis(stride), per_axis(padding), per_axis(dilation)
    pads = [p for axis in reversed(range(rank)) for p in (padding[axis], padding[axis])]  # noqa: ONX603 - static axes
    x = torch.nn.functional.pad(input, pads) if any(pads) else input
    n, channels, spatial = x.shape[0], x.shape[1], x.shape[2:]
    kernel = [int(size) for size in weight.shape[2:]]  # the offsets to sum over
    outputs = weight.shape[0]
    out_sizes = [(spatial[a] - dilation[a] * (kernel[a] - 1) - 1) // stride[a] + 1 for a in range(rank)]  # noqa: ONX603
    grouped = x.reshape(n, groups, 1, channels // groups, *spatial)
    weights = weight.reshape(1, groups, outputs // groups, channels // groups, *kernel)
    offsets = [()]
    for size in kernel:  # noqa: ONX603 - the kernel's (static) axes
        offsets = [offset + (i,) for offset in offsets for i in range(size)]
    total = None
    for offset in offsets:  # noqa: ONX603 - static kernel offsets
        window = grouped[(..., *(slice(offset[a] * dilation[a], offset[a] * dilation[a] + stride[a] * (out_sizes[a] - 1) + 1,
                                       stride[a]) for a in range(rank)))]
        term = (window * weights[(..., *offset)].reshape(1, groups, outputs // groups, channels // groups, *[1] * rank)).sum(3)
        total = term if total is None else total + term
    out = total.reshape(n, outputs, *out_sizes)
    return out if bias is None else out + bias.reshape(1, outputs, *[1] * rank)
