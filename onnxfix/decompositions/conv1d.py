import torch


def _onnx_conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # padding="same" with dilation > 1: the legacy exporter writes Conv(auto_pad=SAME_UPPER),
    # which onnxruntime refuses with dilations. torch pads dilation * (kernel - 1) zeros, the
    # smaller half on the left; padding explicitly and convolving with padding=0 is the same.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.conv1d(input, weight, bias, stride, padding, dilation, groups)
    if padding == "same":
        dilation_ = dilation[0] if isinstance(dilation, (list, tuple)) else dilation
        total = dilation_ * (weight.shape[-1] - 1)
        input = torch.nn.functional.pad(input, (total // 2, total - total // 2))
        padding = 0
    return torch.nn.functional.conv1d(input, weight, bias, stride, padding, dilation, groups)
