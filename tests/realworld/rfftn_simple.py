"""`torch.fft.rfftn` in a model: "RuntimeError: Exporting the operator fft_rfftn to ONNX opset version 11 is not supported".

Source: https://github.com/pytorch/pytorch/issues/125296
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class Spectrum(nn.Module):
    def forward(self, x):
        return torch.fft.rfftn(x, dim=(-2, -1)).abs()


def make_model():
    return Spectrum()


def example_inputs():
    return (torch.randn(2, 6, 8),)


def other_inputs():
    return [(torch.randn(4, 6, 8),), (torch.randn(1, 6, 8),)]


def probe_inputs():
    return other_inputs()
