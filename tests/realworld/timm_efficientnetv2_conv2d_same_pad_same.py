"""timm tf_efficientnetv2 stem/blocks use `Conv2dSame`: `pad_same` computes TF 'SAME' padding from the input size with
`max((math.ceil(x / s) - 1) * s + (k - 1) * d + 1 - x, 0)` and branches on `if pad_h > 0 or pad_w > 0`; ONNX export
warns "Converting a tensor to a Python float/boolean" and fails on the non-constant padding argument.

Source: https://github.com/huggingface/pytorch-image-models/issues/646
"""
import math
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-11"


# Calculate asymmetric TensorFlow-like 'SAME' padding for a convolution
def get_same_padding(x: int, k: int, s: int, d: int):
    return max((math.ceil(x / s) - 1) * s + (k - 1) * d + 1 - x, 0)


# Dynamically pad input x with 'SAME' padding for conv with specified args
def pad_same(x, k: List[int], s: List[int], d: List[int] = (1, 1), value: float = 0):
    ih, iw = x.size()[-2:]
    pad_h, pad_w = get_same_padding(ih, k[0], s[0], d[0]), get_same_padding(iw, k[1], s[1], d[1])
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2], value=value)
    return x


def conv2d_same(
        x, weight: torch.Tensor, bias: Optional[torch.Tensor] = None, stride: Tuple[int, int] = (1, 1),
        padding: Tuple[int, int] = (0, 0), dilation: Tuple[int, int] = (1, 1), groups: int = 1):
    x = pad_same(x, weight.shape[-2:], stride, dilation)
    return F.conv2d(x, weight, bias, stride, (0, 0), dilation, groups)


class Conv2dSame(nn.Conv2d):
    """ Tensorflow like 'SAME' convolution wrapper for 2D convolutions
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, dilation=1, groups=1, bias=True):
        super(Conv2dSame, self).__init__(
            in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)

    def forward(self, x):
        return conv2d_same(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class EfficientNetV2Stem(nn.Module):
    """conv_stem (3x3 s2 SAME) -> bn -> silu -> FusedMBConv-like 3x3 s2 SAME expansion (trimmed)."""

    def __init__(self):
        super().__init__()
        self.conv_stem = Conv2dSame(3, 8, 3, stride=2, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.act1 = nn.SiLU()
        self.conv_exp = Conv2dSame(8, 16, 3, stride=2, bias=False)
        self.bn2 = nn.BatchNorm2d(16)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv_stem(x)))
        x = self.act1(self.bn2(self.conv_exp(x)))
        return x


def make_model():
    return EfficientNetV2Stem().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 63, 77),), (torch.randn(3, 3, 45, 50),)]


def probe_inputs():
    return other_inputs()
