"""mmedit RRDBNet (Real-ESRGAN x2) head: `pixel_unshuffle` checks `if h % scale != 0 or w % scale != 0: raise`
and computes `h = int(h / scale)` before `x.view(b, c, h, scale, w, scale)`; the export warns "Converting a
tensor to a Python integer" and the unshuffle only works for the exported image size.

Source: https://github.com/open-mmlab/mmagic/pull/1637
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-2"


def pixel_unshuffle(x, scale):
    b, c, h, w = x.shape
    if h % scale != 0 or w % scale != 0:
        raise AssertionError(
            f'Invalid scale ({scale}) of pixel unshuffle for tensor '
            f'with shape: {x.shape}')
    h = int(h / scale)
    w = int(w / scale)
    x = x.view(b, c, h, scale, w, scale)
    x = x.permute(0, 1, 3, 5, 2, 4)
    return x.reshape(b, -1, h, w)


class RRDBNetHead(nn.Module):
    def __init__(self, in_channels=3, mid_channels=8, upscale_factor=2):
        super().__init__()
        self.upscale_factor = upscale_factor
        if upscale_factor in [1, 2]:
            in_channels = in_channels * (4 // upscale_factor) ** 2
        self.conv_first = nn.Conv2d(in_channels, mid_channels, 3, 1, 1)
        self.conv_up = nn.Conv2d(mid_channels, 3 * 16, 3, 1, 1)
        self.shuffle = nn.PixelShuffle(4)

    def forward(self, x):
        if self.upscale_factor in [1, 2]:
            feat = pixel_unshuffle(x, scale=4 // self.upscale_factor)
        else:
            feat = x
        feat = self.conv_first(feat)
        return self.shuffle(self.conv_up(torch.relu(feat)))


def make_model():
    return RRDBNetHead()


def example_inputs():
    return (torch.randn(1, 3, 16, 16),)


def other_inputs():
    return [(torch.randn(2, 3, 24, 20),), (torch.randn(1, 3, 12, 32),)]


def probe_inputs():
    return other_inputs()
