import torch


def _onnx_conv_same_padding(op, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # conv2d / conv3d with padding="same" and a dilation above 1: the legacy exporter writes
    # Conv(auto_pad=SAME_UPPER), which onnxruntime refuses with dilations ("Dilation not supported
    # for AutoPadType::SAME_UPPER"). torch pads dilation * (kernel - 1) zeros per axis, the
    # smaller half first; while exporting, that explicit F.pad and padding=0. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(input, weight, bias, stride, padding, dilation, groups)
    if padding != "same":
        return op(input, weight, bias, stride, padding, dilation, groups)
    rank = weight.dim() - 2
    dilations = tuple(dilation) if isinstance(dilation, (list, tuple)) else (dilation,) * rank
    pads = []
    for axis in reversed(range(rank)):  # noqa: ONX603 - over the (static) spatial axes; F.pad lists the last first
        total = dilations[axis] * (weight.shape[2 + axis] - 1)
        pads += [total // 2, total - total // 2]
    return op(torch.nn.functional.pad(input, pads), weight, bias, stride, 0, dilation, groups)
