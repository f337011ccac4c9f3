"""EfficientDet (ONNX/TVM fork) TF-style "same" padding: `Conv2dStaticSamePadding` / `MaxPool2dStaticSamePadding`
read `h, w = x.cpu().detach().numpy().shape[-2:]` and compute the F.pad amounts with `math.ceil`; the report shows
"Converting a tensor to a NumPy array might cause the trace to be incorrect" at that line during ONNX export, and the
converted model then fails further down (TensorRT).

Source: https://github.com/murdockhou/Yet-Another-EfficientDet-Pytorch-Convert-ONNX-TVM/issues/2
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-5"


class Conv2dStaticSamePadding(nn.Module):
    """
    created by Zylo117
    The real keras/tensorflow conv2d with same padding
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, bias=True, groups=1, dilation=1, **kwargs):
        super().__init__()
        if isinstance(stride, int):
            self.stride = [stride] * 2
        elif len(stride) == 1:
            self.stride = [stride[0]] * 2

        if isinstance(kernel_size, int):
            self.kernel_size = [kernel_size] * 2
        elif len(kernel_size) == 1:
            self.kernel_size = [kernel_size[0]] * 2

        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=self.kernel_size, stride=self.stride,
                              bias=bias, groups=groups)
        self.stride = self.conv.stride
        self.kernel_size = self.conv.kernel_size
        self.dilation = self.conv.dilation

    def forward(self, x):
        # h, w = x.shape[-2:]
        h, w = x.cpu().detach().numpy().shape[-2:]
        h_step = math.ceil(w / self.stride[1])
        v_step = math.ceil(h / self.stride[0])
        h_cover_len = self.stride[1] * (h_step - 1) + 1 + (self.kernel_size[1] - 1)
        v_cover_len = self.stride[0] * (v_step - 1) + 1 + (self.kernel_size[0] - 1)

        extra_h = h_cover_len - w
        extra_v = v_cover_len - h

        left = extra_h // 2
        right = extra_h - left
        top = extra_v // 2
        bottom = extra_v - top

        x = F.pad(x, [left, right, top, bottom])

        x = self.conv(x)
        return x


class MaxPool2dStaticSamePadding(nn.Module):
    """
    created by Zylo117
    The real keras/tensorflow MaxPool2d with same padding
    """

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.pool = nn.MaxPool2d(*args, **kwargs)
        self.stride = self.pool.stride
        self.kernel_size = self.pool.kernel_size

        if isinstance(self.stride, int):
            self.stride = [self.stride] * 2
        elif len(self.stride) == 1:
            self.stride = [self.stride[0]] * 2

        if isinstance(self.kernel_size, int):
            self.kernel_size = [self.kernel_size] * 2
        elif len(self.kernel_size) == 1:
            self.kernel_size = [self.kernel_size[0]] * 2

    def forward(self, x):
        # h, w = x.shape[-2:]
        h, w = x.cpu().detach().numpy().shape[-2:]

        h_step = math.ceil(w / self.stride[1])
        v_step = math.ceil(h / self.stride[0])
        h_cover_len = self.stride[1] * (h_step - 1) + 1 + (self.kernel_size[1] - 1)
        v_cover_len = self.stride[0] * (v_step - 1) + 1 + (self.kernel_size[0] - 1)

        extra_h = h_cover_len - w
        extra_v = v_cover_len - h

        left = extra_h // 2
        right = extra_h - left
        top = extra_v // 2
        bottom = extra_v - top

        x = F.pad(x, [left, right, top, bottom])

        x = self.pool(x)
        return x


class StemAndDownsample(nn.Module):
    """EfficientNet stem conv followed by a BiFPN-style P6 downsample."""

    def __init__(self):
        super().__init__()
        self.stem = Conv2dStaticSamePadding(3, 8, kernel_size=3, stride=2, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.p6_down = MaxPool2dStaticSamePadding(3, 2)

    def forward(self, x):
        p = F.silu(self.bn(self.stem(x)))
        return p, self.p6_down(p)


def make_model():
    return StemAndDownsample().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 75, 49),), (torch.randn(1, 3, 37, 90),)]


def probe_inputs():
    return other_inputs()
