"""Lite-HRNet (mmpose top-down pose estimation) CrossResolutionWeighting: every branch is pooled
with `F.adaptive_avg_pool2d(s, mini_size)` where `mini_size = x[-1].size()[-2:]` is taken from the
lowest-resolution branch, then re-expanded with `F.interpolate(a, size=s.size()[-2:])`;
`tools/pytorch2onnx.py` fails on this pooling (output size not constant / not a factor of the
input size), also after wrapping the sizes in `int(v)`.

Source: https://github.com/open-mmlab/mmpose/issues/585
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-13"


class ConvModule(nn.Sequential):
    """mmcv ConvModule: conv + BN + activation."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, act=nn.ReLU):
        super().__init__(
            nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
            nn.BatchNorm2d(out_channels),
            act(),
        )


class CrossResolutionWeighting(nn.Module):
    def __init__(self, channels, ratio=16):
        super().__init__()
        self.channels = channels
        total_channel = sum(channels)
        self.conv1 = ConvModule(in_channels=total_channel, out_channels=int(total_channel / ratio),
                                kernel_size=1, stride=1, act=nn.ReLU)
        self.conv2 = ConvModule(in_channels=int(total_channel / ratio), out_channels=total_channel,
                                kernel_size=1, stride=1, act=nn.Sigmoid)

    def forward(self, x):
        mini_size = x[-1].size()[-2:]
        out = [F.adaptive_avg_pool2d(s, mini_size) for s in x[:-1]] + [x[-1]]
        out = torch.cat(out, dim=1)
        out = self.conv1(out)
        out = self.conv2(out)
        out = torch.split(out, self.channels, dim=1)
        out = [
            s * F.interpolate(a, size=s.size()[-2:], mode='nearest')
            for s, a in zip(x, out)
        ]
        return out


class LiteHRNetStage(nn.Module):
    """Stem + three resolution branches (1/4, 1/8, 1/16) + cross-resolution weighting + head."""

    def __init__(self, channels=(16, 32, 64), num_joints=17):
        super().__init__()
        self.stem = nn.Sequential(ConvModule(3, 16, 3, 2, 1), ConvModule(16, channels[0], 3, 2, 1))
        self.down1 = ConvModule(channels[0], channels[1], 3, 2, 1)
        self.down2 = ConvModule(channels[1], channels[2], 3, 2, 1)
        self.crw = CrossResolutionWeighting(list(channels), ratio=4)
        self.final_layer = nn.Conv2d(channels[0], num_joints, 1)

    def forward(self, x):
        x0 = self.stem(x)
        x1 = self.down1(x0)
        x2 = self.down2(x1)
        y = self.crw([x0, x1, x2])
        return self.final_layer(y[0]), y[1], y[2]


def make_model():
    return LiteHRNetStage().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 192),)


def other_inputs():
    return [(torch.randn(2, 3, 384, 288),), (torch.randn(3, 3, 160, 224),)]


def probe_inputs():
    return other_inputs()
