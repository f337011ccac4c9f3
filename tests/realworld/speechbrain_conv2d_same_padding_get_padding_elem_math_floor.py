"""SpeechBrain's `Conv2d` (padding="same") computes its padding in `_manage_padding` from `L_in = x.shape[-1]`
with `get_padding_elem`, which does `math.floor(...)` Python math on the time size; tracing the layer warns
"Converting a tensor to a Python float might cause the trace to be incorrect" on those `math.floor` lines.

Source: https://github.com/speechbrain/speechbrain/issues/1362
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "domains-45"


def get_padding_elem(L_in: int, stride: int, kernel_size: int, dilation: int):
    if stride > 1:
        padding = [math.floor(kernel_size / 2), math.floor(kernel_size / 2)]

    else:
        L_out = (
            math.floor((L_in - dilation * (kernel_size - 1) - 1) / stride) + 1
        )
        padding = [
            math.floor((L_in - L_out) / 2),
            math.floor((L_in - L_out) / 2),
        ]
    return padding


class Conv2d(nn.Module):
    def __init__(self, out_channels, kernel_size, in_channels=1, stride=(1, 1),
                 dilation=(1, 1), padding="same", padding_mode="reflect"):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation
        self.padding = padding
        self.padding_mode = padding_mode
        self.conv = nn.Conv2d(in_channels, out_channels, self.kernel_size,
                              stride=self.stride, padding=0, dilation=self.dilation)

    def forward(self, x):
        # (batch, time, channel1, channel2) -> (batch, channel2, channel1, time)
        x = x.transpose(1, -1)
        if self.padding == "same":
            x = self._manage_padding(
                x, self.kernel_size, self.dilation, self.stride
            )
        wx = self.conv(x)
        wx = wx.transpose(1, -1)
        return wx

    def _manage_padding(self, x, kernel_size, dilation, stride):
        # Detecting input shape
        L_in = x.shape[-1]

        # Time padding
        padding_time = get_padding_elem(
            L_in, stride[-1], kernel_size[-1], dilation[-1]
        )

        padding_freq = get_padding_elem(
            L_in, stride[-2], kernel_size[-2], dilation[-2]
        )
        padding = padding_time + padding_freq

        # Applying padding
        x = nn.functional.pad(x, padding, mode=self.padding_mode)

        return x


class CNNBlock(nn.Module):
    def __init__(self, n_mels=20):
        super().__init__()
        self.conv1 = Conv2d(out_channels=8, kernel_size=(3, 3), in_channels=1)
        self.norm1 = nn.LayerNorm([n_mels, 8])
        self.conv2 = Conv2d(out_channels=8, kernel_size=(3, 3), in_channels=8)
        self.act = nn.LeakyReLU()

    def forward(self, x):
        x = x.unsqueeze(-1)  # (batch, time, n_mels, 1)
        x = self.act(self.norm1(self.conv1(x)))
        x = self.act(self.conv2(x))
        return x


def make_model():
    return CNNBlock().eval()


def example_inputs():
    return (torch.randn(2, 40, 20),)


def other_inputs():
    return [(torch.randn(3, 57, 20),), (torch.randn(1, 23, 20),)]


def probe_inputs():
    return other_inputs()
