"""A conv net with a frequency branch that takes `torch.fft.fft2` of the feature map and uses its
amplitude; the report: "Exporting the operator 'aten::fft_fft2' to ONNX opset version 11 is not
supported" (only the error is given, so the model around fft2 is the plainest one that uses it).

Source: https://github.com/pytorch/pytorch/issues/121130
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-17"


class FreqBranchNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.stem = nn.Conv2d(1, ch, 3, padding=1)
        self.freq_conv = nn.Conv2d(ch, ch, 1)
        self.head = nn.Conv2d(2 * ch, 1, 3, padding=1)

    def forward(self, x):
        f = torch.relu(self.stem(x))
        x_fft = torch.fft.fft2(f)
        amp = torch.log1p(torch.abs(x_fft))
        amp = self.freq_conv(amp)
        return self.head(torch.cat([f, amp], dim=1))


def make_model():
    return FreqBranchNet().eval()


def example_inputs():
    return (torch.randn(2, 1, 32, 32),)


def other_inputs():
    return [(torch.randn(1, 1, 24, 40),), (torch.randn(3, 1, 48, 20),)]


def probe_inputs():
    return other_inputs()
