"""A Fourier-operator block (the FNO/FourCastNet kind the TensorRT DFT plugins target) filters a feature map with
torch.fft.rfft2 -> complex weight -> torch.fft.irfft2(s=(H, W)); the user reports torch.onnx.export cannot
convert torch.fft.irfft2 (the legacy exporter has no rfft2/irfft2 symbolic).

Source: https://github.com/Alexey-Kamenev/tensorrt-dft-plugins/issues/6
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-20"


class SpectralFilter(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels, 1, 1, 2) * 0.02 + torch.tensor([1.0, 0.0]))
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        B, C, H, W = x.shape
        x = self.proj(x)
        x_ft = torch.fft.rfft2(x, norm="ortho")
        x_ft = x_ft * torch.view_as_complex(self.weight)
        x = torch.fft.irfft2(x_ft, s=(H, W), norm="ortho")
        return x


class Model(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.lift = nn.Conv2d(2, channels, 1)
        self.spectral = SpectralFilter(channels)
        self.w = nn.Conv2d(channels, channels, 1)
        self.out = nn.Conv2d(channels, 1, 1)

    def forward(self, x):
        x = self.lift(x)
        x = torch.nn.functional.gelu(self.spectral(x) + self.w(x))
        return self.out(x)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(2, 2, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 2, 20, 24),), (torch.randn(1, 2, 12, 10),)]


def probe_inputs():
    return other_inputs()
