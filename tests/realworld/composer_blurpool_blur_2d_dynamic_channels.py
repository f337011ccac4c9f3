"""Composer's BlurPool surgery replaces a ResNet's MaxPool2d with BlurMaxPool2d, whose `blur_2d(maxs,
channels=-1, ...)` takes the "dynamic control flow" path (`_, channels, h, w = input.shape`,
`filter.repeat((channels, 1, 1, 1))`, `if h + 2 * padding[0] < filter_h: return input`); ONNX export with
dynamic batch/height/width axes fails, while a static export or `replace_maxpools=False` works.

Source: https://github.com/mosaicml/composer/issues/3466
"""
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.utils import _pair

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "domains-17"


def _default_2d_filter():
    default_filter = torch.tensor([[[
        [1, 2, 1],
        [2, 4, 2],
        [1, 2, 1],
    ]]]) * 1 / 16.0

    return default_filter


def _padding_for_filt_2d_same(filt: torch.Tensor):
    _, _, h, w = filt.shape
    if h % 2 == 0:
        raise IndexError(f'Filter must have odd height; got {h}')
    if w % 2 == 0:
        raise IndexError(f'Filter must have odd width; got {w}')
    return int(torch.div(h, 2)), int(torch.div(w, 2))


def blur_2d(input: torch.Tensor, channels: int = -1, stride=1, filter: Optional[torch.Tensor] = None) -> torch.Tensor:
    if filter is None:
        filter = _default_2d_filter()
    # The dynamic control flow branch below does not affect the padding as only h and w are used.
    padding = _padding_for_filt_2d_same(filter)

    if channels < 1:  # Use Dynamic Control Flow
        _, channels, h, w = input.shape

        if (filter.shape[0] == 1) and (channels > 1):
            # assume filt is already a rank 4 tensor
            filter = filter.repeat((channels, 1, 1, 1))

        _, _, filter_h, filter_w = filter.shape
        if h + 2 * padding[0] < filter_h:
            return input
        if w + 2 * padding[1] < filter_w:
            return input

    # Call F.conv2d without using keyword arguments as that triggers a bug in fx tracing quantization.
    return F.conv2d(input, filter, None, _pair(stride), _pair(padding), _pair(1), channels)


def blurmax_pool2d(input, kernel_size=None, stride=2, padding=0, dilation=1, ceil_mode=False, filter=None):
    if kernel_size is None:
        kernel_size = (2, 2)

    maxs = F.max_pool2d(
        input,
        kernel_size=kernel_size,
        stride=1,
        padding=padding,
        dilation=dilation,
        ceil_mode=ceil_mode,
    )
    return blur_2d(maxs, channels=-1, stride=stride, filter=filter)


class BlurMaxPool2d(nn.Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        super(BlurMaxPool2d, self).__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.ceil_mode = ceil_mode
        self.register_buffer('filt2d', _default_2d_filter())

    def forward(self, input: torch.Tensor):
        return blurmax_pool2d(
            input,
            kernel_size=self.kernel_size,
            stride=self.stride,
            padding=self.padding,
            dilation=self.dilation,
            ceil_mode=self.ceil_mode,
            filter=self.filt2d,
        )


class BlurResNetStem(nn.Module):
    """resnet18's stem and first block after `cf.apply_blurpool` swapped its MaxPool2d."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = BlurMaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        return self.fc(torch.flatten(self.avgpool(x), 1))


def make_model():
    return BlurResNetStem().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 96, 80),), (torch.rand(1, 3, 40, 56),)]


def probe_inputs():
    return other_inputs()
