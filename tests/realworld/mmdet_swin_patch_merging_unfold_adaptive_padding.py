"""Swin backbone downsampling in mmdet (`mmdet.models.utils.transformer.PatchMerging`): `AdaptivePadding` computes
the pad from the feature size with `math.ceil` / `max` and pads only `if pad_h > 0 or pad_w > 0`, then patches are
merged with `nn.Unfold` and the output size is recomputed in Python from H, W. mmdeploy replaced this forward
(slicing instead of unfold, no adaptive padding) to deploy Swin, saying the ONNX graph of the original could not
be used.

Source: https://github.com/open-mmlab/mmdeploy/pull/652
"""
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-55"


def to_2tuple(x):
    if isinstance(x, Sequence) and not isinstance(x, str):
        return tuple(x)
    return (x, x)


class AdaptivePadding(nn.Module):

    def __init__(self, kernel_size=1, stride=1, dilation=1, padding='corner'):
        super(AdaptivePadding, self).__init__()

        assert padding in ('same', 'corner')

        kernel_size = to_2tuple(kernel_size)
        stride = to_2tuple(stride)
        dilation = to_2tuple(dilation)

        self.padding = padding
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation

    def get_pad_shape(self, input_shape):
        input_h, input_w = input_shape
        kernel_h, kernel_w = self.kernel_size
        stride_h, stride_w = self.stride
        output_h = math.ceil(input_h / stride_h)
        output_w = math.ceil(input_w / stride_w)
        pad_h = max((output_h - 1) * stride_h +
                    (kernel_h - 1) * self.dilation[0] + 1 - input_h, 0)
        pad_w = max((output_w - 1) * stride_w +
                    (kernel_w - 1) * self.dilation[1] + 1 - input_w, 0)
        return pad_h, pad_w

    def forward(self, x):
        pad_h, pad_w = self.get_pad_shape(x.size()[-2:])
        if pad_h > 0 or pad_w > 0:
            if self.padding == 'corner':
                x = F.pad(x, [0, pad_w, 0, pad_h])
            elif self.padding == 'same':
                x = F.pad(x, [
                    pad_w // 2, pad_w - pad_w // 2, pad_h // 2,
                    pad_h - pad_h // 2
                ])
        return x


class PatchMerging(nn.Module):

    def __init__(self, in_channels, out_channels, kernel_size=2, stride=None,
                 padding='corner', dilation=1, bias=False):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        if stride:
            stride = stride
        else:
            stride = kernel_size

        kernel_size = to_2tuple(kernel_size)
        stride = to_2tuple(stride)
        dilation = to_2tuple(dilation)

        if isinstance(padding, str):
            self.adap_padding = AdaptivePadding(
                kernel_size=kernel_size,
                stride=stride,
                dilation=dilation,
                padding=padding)
            # disable the padding of unfold
            padding = 0
        else:
            self.adap_padding = None

        padding = to_2tuple(padding)
        self.sampler = nn.Unfold(
            kernel_size=kernel_size,
            dilation=dilation,
            padding=padding,
            stride=stride)

        sample_dim = kernel_size[0] * kernel_size[1] * in_channels
        self.norm = nn.LayerNorm(sample_dim)
        self.reduction = nn.Linear(sample_dim, out_channels, bias=bias)

    def forward(self, x, input_size):
        B, L, C = x.shape
        assert isinstance(input_size, Sequence), f'Expect ' \
                                                 f'input_size is ' \
                                                 f'`Sequence` ' \
                                                 f'but get {input_size}'

        H, W = input_size
        assert L == H * W, 'input feature has wrong size'

        x = x.view(B, H, W, C).permute([0, 3, 1, 2])  # B, C, H, W
        # Use nn.Unfold to merge patch. About 25% faster than original method,
        # but need to modify pretrained model for compatibility

        if self.adap_padding:
            x = self.adap_padding(x)
            H, W = x.shape[-2:]

        x = self.sampler(x)
        # if kernel_size=2 and stride=2, x should has shape (B, 4*C, H/2*W/2)

        out_h = (H + 2 * self.sampler.padding[0] - self.sampler.dilation[0] *
                 (self.sampler.kernel_size[0] - 1) -
                 1) // self.sampler.stride[0] + 1
        out_w = (W + 2 * self.sampler.padding[1] - self.sampler.dilation[1] *
                 (self.sampler.kernel_size[1] - 1) -
                 1) // self.sampler.stride[1] + 1

        output_size = (out_h, out_w)
        x = x.transpose(1, 2)  # B, H/2*W/2, 4*C
        x = self.norm(x) if self.norm else x
        x = self.reduction(x)
        return x, output_size


class TinySwinStem(nn.Module):
    """PatchEmbed (4x4 conv) -> tokens -> PatchMerging -> NCHW feature map, as SwinTransformer.forward does."""

    def __init__(self, embed_dims=32):
        super().__init__()
        self.projection = nn.Conv2d(3, embed_dims, kernel_size=4, stride=4)
        self.norm = nn.LayerNorm(embed_dims)
        self.downsample = PatchMerging(embed_dims, 2 * embed_dims)

    def forward(self, img):
        x = self.projection(img)
        hw_shape = (x.shape[2], x.shape[3])
        x = x.flatten(2).transpose(1, 2)
        x = self.norm(x)
        x_down, down_hw_shape = self.downsample(x, hw_shape)
        out = x_down.view(-1, *down_hw_shape, 64).permute(0, 3, 1, 2).contiguous()
        return out


def make_model():
    return TinySwinStem().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 36, 84),), (torch.randn(1, 3, 120, 44),)]


def probe_inputs():
    return other_inputs()
