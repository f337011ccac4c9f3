"""A model headed for TensorRT runs torch.fft.fft2 on a feature map (frequency branch: 2-D FFT, amplitude,
back to the spatial path); torch.onnx.export(..., opset_version=17) fails with "Exporting the operator
'aten::fft_fft2' to ONNX opset version 17 is not supported" (torch 2.6).

Source: https://github.com/NVIDIA/TensorRT/issues/4480
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-20"


class FrequencyBranch(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv_in = nn.Conv2d(channels, channels, 1)
        self.conv_out = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        y = self.conv_in(x)
        y = torch.fft.fft2(y)
        amp = torch.abs(y)
        return x + self.conv_out(torch.log1p(amp))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.freq = FrequencyBranch(16)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, input):
        x = torch.relu(self.stem(input))
        x = self.freq(x)
        return self.head(x)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(1, 3, 40, 24),), (torch.randn(3, 3, 16, 48),)]


def probe_inputs():
    return other_inputs()
