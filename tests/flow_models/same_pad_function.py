"""ONX608 on TensorFlow-style 'SAME' padding as timm, geffnet and mmcv write it: the amount is
`max((ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)` from a module function (timm's
`get_same_padding`) or bound once in forward (mmcv's Conv2dAdaptivePadding, its dilation a pair
built by a helper the oracle cannot type), and the pad is taken only `if pad_h > 0 or pad_w > 0:`.
Exported at a size that needs no pad, both exporters drop it for every size. The amounts are >= 0
by the `max(..., 0)`, so the pad taken always is 0 where the test failed."""
import math

import torch
import torch.nn.functional as F
from torch import nn


def to_2tuple(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x, x)


def get_same_padding(x: int, k: int, s: int, d: int):
    return max((math.ceil(x / s) - 1) * s + (k - 1) * d + 1 - x, 0)


def pad_same(x, k, s, d=(1, 1)):
    ih, iw = x.size()[-2:]
    pad_h, pad_w = get_same_padding(ih, k[0], s[0], d[0]), get_same_padding(iw, k[1], s[1], d[1])
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
    return x


class Conv2dSame(nn.Conv2d):
    def forward(self, x):
        x = pad_same(x, self.weight.shape[-2:], self.stride, self.dilation)
        return F.conv2d(x, self.weight, self.bias, self.stride, (0, 0), self.dilation, self.groups)


class Conv2dAdaptivePadding(nn.Module):
    def __init__(self, dilation=1):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 3, 2, 2))
        self.stride = to_2tuple(2)
        self.dilation = to_2tuple(dilation)

    def forward(self, x):
        img_h, img_w = x.size()[-2:]
        kernel_h, kernel_w = self.weight.size()[-2:]
        output_h = math.ceil(img_h / self.stride[0])
        output_w = math.ceil(img_w / self.stride[1])
        pad_h = max((output_h - 1) * self.stride[0] + (kernel_h - 1) * self.dilation[0] + 1 - img_h, 0)
        pad_w = max((output_w - 1) * self.stride[1] + (kernel_w - 1) * self.dilation[1] + 1 - img_w, 0)
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
        return F.conv2d(x, self.weight, None, self.stride, 0, self.dilation)


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.timm = Conv2dSame(3, 4, 2, stride=2)
        self.mmcv = Conv2dAdaptivePadding()

    def forward(self, images):
        return self.timm(images), self.mmcv(images)


def make_model():
    return Stem()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 3, 32, 32),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 3, 31, 45),), (torch.randn(1, 3, 33, 64),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
