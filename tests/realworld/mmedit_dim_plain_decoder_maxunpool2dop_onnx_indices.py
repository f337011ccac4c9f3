"""Deep Image Matting (mmediting) VGG encoder + PlainDecoder: under `torch.onnx.is_in_onnx_export()` the decoder
swaps `nn.MaxUnpool2d` for a `MaxUnpool2dop` autograd Function whose `symbolic` emits ONNX `MaxUnpool` straight
from PyTorch's max-pool indices, warning "The definitions of indices are different between Pytorch and ONNX, so the
outputs between Pytorch and ONNX maybe different" (PyTorch's indices count within each (n, c) plane, ONNX's over the
whole tensor); the PR adds the batch/channel offsets in the symbolic. The code BEFORE the PR is the case (five
unpool stages and the 512-wide convs trimmed to three stages and small widths).

Source: https://github.com/open-mmlab/mmagic/pull/243
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.nn.modules.pooling import _MaxUnpoolNd
from torch.nn.modules.utils import _pair

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-46"


class MaxUnpool2dop(Function):
    """We warp the `torch.nn.functional.max_unpool2d`
    with an extra `symbolic` method, which is needed while exporting to ONNX.
    Users should not call this function directly.
    """

    @staticmethod
    def forward(ctx, input, indices, kernel_size, stride, padding,
                output_size):
        return F.max_unpool2d(input, indices, kernel_size, stride, padding,
                              output_size)

    @staticmethod
    def symbolic(g, input, indices, kernel_size, stride, padding, output_size):
        warnings.warn(
            'The definitions of indices are different between Pytorch and ONNX'
            ', so the outputs between Pytorch and ONNX maybe different')
        return g.op(
            'MaxUnpool',
            input,
            indices,
            kernel_shape_i=kernel_size,
            strides_i=stride)


class MaxUnpool2d(_MaxUnpoolNd):
    """This module is modified from Pytorch `MaxUnpool2d` module."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super(MaxUnpool2d, self).__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride or kernel_size)
        self.padding = _pair(padding)

    def forward(self, input, indices, output_size=None):
        return MaxUnpool2dop.apply(input, indices, self.kernel_size,
                                   self.stride, self.padding, output_size)


class VGG16(nn.Module):
    """Encoder of Deep Image Matting (layers trimmed)."""

    def __init__(self, in_channels=4):
        super().__init__()
        self.layer1 = self._make_layer(in_channels, 16)
        self.layer2 = self._make_layer(16, 32)
        self.layer3 = self._make_layer(32, 64)
        self.conv6 = nn.Conv2d(64, 64, kernel_size=1)
        self.relu = nn.ReLU(inplace=True)

    def _make_layer(self, inplanes, planes):
        layers = [nn.Conv2d(inplanes, planes, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
        layers += [nn.MaxPool2d(kernel_size=2, stride=2, return_indices=True)]
        return nn.Sequential(*layers)

    def forward(self, x):
        out, max_idx_1 = self.layer1(x)
        out, max_idx_2 = self.layer2(out)
        out, max_idx_3 = self.layer3(out)
        out = self.relu(self.conv6(out))
        return {'out': out, 'max_idx_1': max_idx_1, 'max_idx_2': max_idx_2, 'max_idx_3': max_idx_3}


class PlainDecoder(nn.Module):
    """Simple decoder from Deep Image Matting."""

    def __init__(self, in_channels):
        super().__init__()
        self.deconv6_1 = nn.Conv2d(in_channels, 64, kernel_size=1)
        self.deconv3_1 = nn.Conv2d(64, 32, kernel_size=5, padding=2)
        self.deconv2_1 = nn.Conv2d(32, 16, kernel_size=5, padding=2)
        self.deconv1_1 = nn.Conv2d(16, 16, kernel_size=5, padding=2)
        self.deconv1 = nn.Conv2d(16, 1, kernel_size=5, padding=2)

        self.relu = nn.ReLU(inplace=True)
        self.max_unpool2d_for_onnx = MaxUnpool2d(kernel_size=2, stride=2)
        self.max_unpool2d = nn.MaxUnpool2d(kernel_size=2, stride=2)

    def forward(self, inputs):
        max_idx_1 = inputs['max_idx_1']
        max_idx_2 = inputs['max_idx_2']
        max_idx_3 = inputs['max_idx_3']
        x = inputs['out']

        max_unpool2d = self.max_unpool2d
        if torch.onnx.is_in_onnx_export():
            max_unpool2d = self.max_unpool2d_for_onnx

        out = self.relu(self.deconv6_1(x))
        out = max_unpool2d(out, max_idx_3)

        out = self.relu(self.deconv3_1(out))
        out = max_unpool2d(out, max_idx_2)

        out = self.relu(self.deconv2_1(out))
        out = max_unpool2d(out, max_idx_1)

        out = self.relu(self.deconv1_1(out))
        raw_alpha = self.deconv1(out)
        return raw_alpha


class DIM(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = VGG16(4)
        self.decoder = PlainDecoder(64)

    def forward(self, x):
        return self.decoder(self.encoder(x))


def make_model():
    return DIM().eval()


def example_inputs():
    return (torch.randn(2, 4, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 4, 40, 24),), (torch.randn(1, 4, 16, 48),)]


def probe_inputs():
    return other_inputs()
