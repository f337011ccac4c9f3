"""Yet-Another-EfficientDet: Conv2dStaticSamePadding / MaxPool2dStaticSamePadding compute the TF-"SAME"
padding in forward from `h, w = x.shape[-2:]` with `math.ceil(w / self.stride[1])`; the report says
ONNX export breaks on this (the traced export turns the padding into constants of the example size).

Source: https://github.com/zylo117/Yet-Another-EfficientDet-Pytorch/issues/519
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-29"


class Conv2dStaticSamePadding(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, bias=True, groups=1, dilation=1, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                              bias=bias, groups=groups)
        self.stride = self.conv.stride
        self.kernel_size = self.conv.kernel_size
        self.dilation = self.conv.dilation

        if isinstance(self.stride, int):
            self.stride = [self.stride] * 2
        elif len(self.stride) == 1:
            self.stride = [self.stride[0]] * 2

        if isinstance(self.kernel_size, int):
            self.kernel_size = [self.kernel_size] * 2
        elif len(self.kernel_size) == 1:
            self.kernel_size = [self.kernel_size[0]] * 2

    def forward(self, x):
        h, w = x.shape[-2:]

        extra_h = (math.ceil(w / self.stride[1]) - 1) * self.stride[1] - w + self.kernel_size[1]
        extra_v = (math.ceil(h / self.stride[0]) - 1) * self.stride[0] - h + self.kernel_size[0]

        left = extra_h // 2
        right = extra_h - left
        top = extra_v // 2
        bottom = extra_v - top

        x = F.pad(x, [left, right, top, bottom])

        x = self.conv(x)
        return x


class MaxPool2dStaticSamePadding(nn.Module):
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
        h, w = x.shape[-2:]

        extra_h = (math.ceil(w / self.stride[1]) - 1) * self.stride[1] - w + self.kernel_size[1]
        extra_v = (math.ceil(h / self.stride[0]) - 1) * self.stride[0] - h + self.kernel_size[0]

        left = extra_h // 2
        right = extra_h - left
        top = extra_v // 2
        bottom = extra_v - top

        x = F.pad(x, [left, right, top, bottom])
        x = self.pool(x)
        return x


class BiFPNInputStem(nn.Module):
    """The P5 -> P6 -> P7 downsampling used by BiFPN's first layer."""

    def __init__(self):
        super().__init__()
        self.p5_to_p6 = nn.Sequential(
            Conv2dStaticSamePadding(3, 8, 3, stride=2),
            nn.BatchNorm2d(8, momentum=0.01, eps=1e-3),
            MaxPool2dStaticSamePadding(3, 2),
        )
        self.p6_to_p7 = nn.Sequential(MaxPool2dStaticSamePadding(3, 2))

    def forward(self, x):
        p6 = self.p5_to_p6(x)
        p7 = self.p6_to_p7(p6)
        return p6, p7


def make_model():
    return BiFPNInputStem().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 75, 50),), (torch.randn(1, 3, 41, 97),)]


def probe_inputs():
    return other_inputs()
