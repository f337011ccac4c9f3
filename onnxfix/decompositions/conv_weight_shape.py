import torch


def _onnx_conv_weight_shape(op, input, weight, *args, **kwargs):
    # A convolution's arguments as the exporters can take them. A kernel built in forward
    # (kornia's filter2d: a Gaussian expanded over the channels and reshaped with sizes read from
    # tensors): the legacy exporter needs the kernel's shape and sees only a Reshape of traced
    # sizes ("convolution for kernel of unknown shape"). While it traces, the kernel is reshaped to
    # its sizes as Python numbers, constants in the graph (kept only when the export matches
    # PyTorch on inputs of other sizes). padding="same" with a dilation above 1: the legacy
    # exporter writes Conv(auto_pad=SAME_UPPER), which onnxruntime refuses with dilations; torch
    # pads dilation * (kernel - 1) zeros per axis, the smaller half first, so an explicit F.pad and
    # padding=0 are the same. A group count read from a dynamic size (a SymInt under torch.export;
    # under the legacy trace, a traced size over an input of batch 1: a batch folded into the
    # channels) takes _onnx_conv_groups; the legacy trace keeps its single Conv otherwise (a kernel
    # blur's count of channels is a traced size too, and the sum over offsets would be k*k nodes).
    # Eager runs the op itself, and so does dynamo for any other call.
    if not torch.onnx.is_in_onnx_export():
        return op(input, weight, *args, **kwargs)
    options = {**dict(zip(("bias", "stride", "padding", "dilation", "groups"), args)), **kwargs}
    if torch.compiler.is_exporting():  # a group count torch.export keeps symbolic: ONNX's Conv needs a number
        if isinstance(options.get("groups", 1), torch.SymInt) and "transpose" not in op.__name__:
            return _onnx_conv_groups(input, weight, **options)
        return op(input, weight, *args, **kwargs)
    if (not isinstance(options.get("groups", 1), int) and "transpose" not in op.__name__
            and int(input.shape[0]) == 1 and input.dim() == weight.dim()):
        # a traced group count over a batch folded into the channels (DMNet's `x.view(1, b * c, h, w)`)
        return _onnx_conv_groups(input, weight, **options)
    weight = weight.reshape([int(size) for size in weight.shape])
    if "transpose" in op.__name__ or options.get("padding") != "same":
        return op(input, weight, *args, **kwargs)
    rank = weight.dim() - 2
    dilation = options.get("dilation", 1)
    dilations = tuple(dilation) if isinstance(dilation, (list, tuple)) else (dilation,) * rank
    pads = []
    for axis in reversed(range(rank)):  # noqa: ONX603 - over the (static) spatial axes; F.pad lists the last first
        total = dilations[axis] * (weight.shape[2 + axis] - 1)
        pads += [total // 2, total - total // 2]
    return op(torch.nn.functional.pad(input, pads), weight, **{**options, "padding": 0})
