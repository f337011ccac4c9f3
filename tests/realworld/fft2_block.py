"""YOLO variant with a frequency-domain block: `torch.fft.fft2` on the feature map;
"Exporting the operator 'aten::fft_fft2' to ONNX opset version 17 is not supported".

Source: https://github.com/pytorch/pytorch/issues/149332
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class FFTBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 1)

    def forward(self, x):
        freq = torch.fft.fft2(x)
        return self.conv(freq.abs()) + x


def make_model():
    return FFTBlock()


def example_inputs():
    return (torch.randn(1, 2, 8, 8),)


def other_inputs():
    return [(torch.randn(3, 2, 8, 8),), (torch.randn(2, 2, 8, 8),)]


def probe_inputs():
    return other_inputs()
