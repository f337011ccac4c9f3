"""mmpretrain EfficientNet (TF-ported weights) built with mmcv's `Conv2dAdaptivePadding`: every conv computes
TF 'SAME' padding in forward from `x.size()[-2:]` with `math.ceil`, `max(...)` and an `if pad_h > 0 or pad_w > 0`
branch before `F.pad`; mmdeploy reports the conversion cannot be completed for this padding computation and
rewrites the op (static shape only).

Source: https://github.com/open-mmlab/mmdeploy/pull/1045
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-20"


class Conv2dAdaptivePadding(nn.Conv2d):
    """Implementation of 2D convolution in tensorflow with `padding` as "same"."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True):
        super().__init__(in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        img_h, img_w = x.size()[-2:]
        kernel_h, kernel_w = self.weight.size()[-2:]
        stride_h, stride_w = self.stride
        output_h = math.ceil(img_h / stride_h)
        output_w = math.ceil(img_w / stride_w)
        pad_h = (
            max((output_h - 1) * self.stride[0] +
                (kernel_h - 1) * self.dilation[0] + 1 - img_h, 0))
        pad_w = (
            max((output_w - 1) * self.stride[1] +
                (kernel_w - 1) * self.dilation[1] + 1 - img_w, 0))
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, [
                pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2
            ])
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class ConvModule(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, groups=1):
        super().__init__()
        self.conv = Conv2dAdaptivePadding(in_channels, out_channels, kernel_size, stride,
                                          groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.activate = nn.SiLU()

    def forward(self, x):
        return self.activate(self.bn(self.conv(x)))


class EfficientNetStem(nn.Module):
    """stem conv 3x3/2 -> depthwise 3x3/1 -> project 1x1 -> depthwise 5x5/2 (trimmed EfficientNet-B0)."""

    def __init__(self):
        super().__init__()
        self.stem = ConvModule(3, 16, 3, stride=2)
        self.dw1 = ConvModule(16, 16, 3, stride=1, groups=16)
        self.pw1 = ConvModule(16, 24, 1)
        self.dw2 = ConvModule(24, 24, 5, stride=2, groups=24)

    def forward(self, x):
        return self.dw2(self.pw1(self.dw1(self.stem(x))))


def make_model():
    return EfficientNetStem().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 57, 70),), (torch.randn(1, 3, 45, 38),)]


def probe_inputs():
    return other_inputs()
