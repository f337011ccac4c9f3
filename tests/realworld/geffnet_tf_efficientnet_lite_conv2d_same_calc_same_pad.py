"""gen-efficientnet-pytorch's tf_efficientnet_lite* models use `Conv2dSame`, whose `conv2d_same` computes the
TF 'SAME' padding in Python from the input size (`max((math.ceil(i / s) - 1) * s + ... - i, 0)`,
`if pad_h > 0 or pad_w > 0: F.pad(...)`); the ONNX trace warns "Converting a tensor to a Python float/boolean"
and keeps the export-time padding, so other image sizes are padded wrongly.

Source: https://github.com/rwightman/gen-efficientnet-pytorch/issues/34
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-41"


def _calc_same_pad(i, k, s, d):
    return max((math.ceil(i / s) - 1) * s + (k - 1) * d + 1 - i, 0)


# pylint: disable=unused-argument
def conv2d_same(x, weight, bias=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    ih, iw = x.size()[-2:]
    kh, kw = weight.size()[-2:]
    pad_h = _calc_same_pad(ih, kh, stride[0], dilation[0])
    pad_w = _calc_same_pad(iw, kw, stride[1], dilation[1])
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
    return F.conv2d(x, weight, bias, stride, (0, 0), dilation, groups)


class Conv2dSame(nn.Conv2d):
    """ Tensorflow like 'SAME' convolution wrapper for 2D convolutions
    """

    # pylint: disable=unused-argument
    def __init__(self, in_channels, out_channels, kernel_size, stride=1,
                 padding=0, dilation=1, groups=1, bias=True):
        super(Conv2dSame, self).__init__(
            in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)

    def forward(self, x):
        return conv2d_same(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class TfEfficientNetLiteTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_stem = Conv2dSame(3, 16, 3, stride=2, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.act1 = nn.ReLU6(inplace=True)
        self.conv_dw = Conv2dSame(16, 16, 5, stride=2, groups=16, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.conv_pw = nn.Conv2d(16, 24, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(24)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv_stem(x)))
        x = self.act1(self.bn2(self.conv_dw(x)))
        x = self.bn3(self.conv_pw(x))
        return x   # feature map: its size and border values depend on the padding


def make_model():
    return TfEfficientNetLiteTiny().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 57, 71),), (torch.randn(1, 3, 45, 50),)]


def probe_inputs():
    return other_inputs()
