"""Monodepth2-style depth decoder: forward fills `self.outputs[("disp", i)]` for each scale and returns that
dict keyed by ("disp", int) tuples; torch.onnx.export fails with "Only tuples, lists and Variables are supported
as JIT inputs/outputs ... received an input of unsupported type: int".

Source: https://github.com/onnx/onnx/issues/4989
"""
from collections import OrderedDict

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-6"


def upsample(x):
    return F.interpolate(x, scale_factor=2, mode="nearest")


class Conv3x3(nn.Module):
    def __init__(self, in_channels, out_channels, use_refl=True):
        super(Conv3x3, self).__init__()
        self.pad = nn.ReflectionPad2d(1) if use_refl else nn.ZeroPad2d(1)
        self.conv = nn.Conv2d(int(in_channels), int(out_channels), 3)

    def forward(self, x):
        return self.conv(self.pad(x))


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(ConvBlock, self).__init__()
        self.conv = Conv3x3(in_channels, out_channels)
        self.nonlin = nn.ELU(inplace=True)

    def forward(self, x):
        return self.nonlin(self.conv(x))


class DepthDecoder(nn.Module):
    def __init__(self, num_ch_enc, scales=range(4), num_output_channels=1, use_skips=True):
        super(DepthDecoder, self).__init__()
        self.num_output_channels = num_output_channels
        self.use_skips = use_skips
        self.scales = scales
        self.num_ch_enc = num_ch_enc
        self.num_ch_dec = np.array([4, 8, 16, 32, 64])
        self.convs = OrderedDict()
        for i in range(4, -1, -1):
            num_ch_in = self.num_ch_enc[-1] if i == 4 else self.num_ch_dec[i + 1]
            self.convs[("upconv", i, 0)] = ConvBlock(num_ch_in, self.num_ch_dec[i])
            num_ch_in = self.num_ch_dec[i]
            if self.use_skips and i > 0:
                num_ch_in += self.num_ch_enc[i - 1]
            self.convs[("upconv", i, 1)] = ConvBlock(num_ch_in, self.num_ch_dec[i])
        for s in self.scales:
            self.convs[("dispconv", s)] = Conv3x3(self.num_ch_dec[s], self.num_output_channels)
        self.decoder = nn.ModuleList(list(self.convs.values()))
        self.sigmoid = nn.Sigmoid()
        self.outputs = {}

    def forward(self, input_features):
        x = input_features[-1]
        for i in range(4, -1, -1):
            x = self.convs[("upconv", i, 0)](x)
            x = [upsample(x)]
            if self.use_skips and i > 0:
                x += [input_features[i - 1]]
            x = torch.cat(x, 1)
            x = self.convs[("upconv", i, 1)](x)
            if i in self.scales:  # (0,4)
                self.outputs[("disp", i)] = self.sigmoid(self.convs[("dispconv", i)](x))
        return self.outputs


class TinyEncoder(nn.Module):
    # stands in for monodepth2's ResnetEncoder: five feature maps at strides 2, 4, 8, 16, 32
    def __init__(self, num_ch_enc):
        super().__init__()
        chans = [3] + list(num_ch_enc)
        self.stages = nn.ModuleList(
            nn.Sequential(nn.Conv2d(chans[k], chans[k + 1], 3, stride=2, padding=1), nn.ReLU()) for k in range(5))

    def forward(self, x):
        features = []
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        return features


class MonoDepth(nn.Module):
    def __init__(self):
        super().__init__()
        num_ch_enc = np.array([8, 8, 16, 32, 64])
        self.encoder = TinyEncoder(num_ch_enc)
        self.depth_decoder = DepthDecoder(num_ch_enc, scales=range(4))

    def forward(self, x):
        return self.depth_decoder(self.encoder(x))


def make_model():
    return MonoDepth().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(3, 3, 64, 128),)]


def probe_inputs():
    return other_inputs()
