"""A conv block built with `torch.nn.Conv2d(..., padding="same", dilation=2)`: the TorchScript exporter writes the
Conv with `auto_pad=SAME_UPPER` plus `dilations=[2, 2]`, and onnxruntime's CPU Conv kernel rejects that
combination outright ("Dilation not supported for AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER"); the
report uses a 22x27 input, where the output must stay (1, 4, 22, 27).

Source: https://github.com/microsoft/onnxscript/pull/3037
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-7"


class DilatedSameConv(nn.Module):
    def __init__(self, in_channels=3, out_channels=4):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding="same", dilation=2)
        self.act = nn.ReLU()
        self.proj = nn.Conv2d(out_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.proj(self.act(self.conv(x)))


def make_model():
    return DilatedSameConv().eval()


def example_inputs():
    return (torch.randn(1, 3, 22, 27),)


def other_inputs():
    return [(torch.randn(2, 3, 31, 18),), (torch.randn(3, 3, 16, 40),)]


def probe_inputs():
    return other_inputs()
