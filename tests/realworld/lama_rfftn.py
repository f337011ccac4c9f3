"""big-lama's Fourier unit: `torch.fft.rfftn` over the spatial dims, a pointwise conv on the spectrum,
`torch.fft.irfftn` back; "fft_rfftn is not supported".

Source: https://github.com/onnx/onnx/issues/4843
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class FourierUnit(nn.Module):
    def __init__(self, ch=2):
        super().__init__()
        self.conv = nn.Conv2d(2 * ch, 2 * ch, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        ffted = torch.fft.rfftn(x, dim=(-2, -1), norm="ortho")
        ffted = torch.cat([ffted.real, ffted.imag], dim=1)
        ffted = self.conv(ffted)
        re, im = ffted.chunk(2, dim=1)
        return torch.fft.irfftn(torch.complex(re, im), s=(h, w), dim=(-2, -1), norm="ortho")


def make_model():
    return FourierUnit()


def example_inputs():
    return (torch.randn(1, 2, 8, 8),)


def other_inputs():
    return [(torch.randn(3, 2, 8, 8),), (torch.randn(2, 2, 8, 8),)]


def probe_inputs():
    return other_inputs()
