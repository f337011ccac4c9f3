"""A custom image model with a Fourier-domain block: torch.fft.rfftn over (H, W), view_as_real to
mix real/imag parts with a 1x1 conv, torch.complex to rebuild the spectrum, torch.fft.irfftn back.
torch.export captures it (static sizes only) but lowering fails on aten._fft_r2c / _fft_c2r, the
complex view_as_real and aten.complex ("not Aten Canonical", then mismatched complex dtypes).

Source: https://github.com/pytorch/executorch/issues/1362
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-37"


class SpectralBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.mix = nn.Conv2d(channels * 2, channels * 2, 1)
        self.act = nn.GELU()

    def forward(self, x):
        h, w = x.shape[-2:]
        spec = torch.fft.rfftn(x, dim=(-2, -1), norm="ortho")
        ri = torch.view_as_real(spec)                      # B, C, H, W//2+1, 2
        ri = ri.permute(0, 1, 4, 2, 3).flatten(1, 2)       # B, 2C, H, W//2+1
        ri = self.act(self.mix(ri))
        real, imag = ri.chunk(2, dim=1)
        spec = torch.complex(real, imag)
        return torch.fft.irfftn(spec, s=(h, w), dim=(-2, -1), norm="ortho")


class Model(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.spectral = SpectralBlock(channels)
        self.head = nn.Conv2d(channels, 3, 3, padding=1)

    def forward(self, x):
        y = self.stem(x)
        y = y + self.spectral(y)
        return self.head(y)


def make_model():
    return Model()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 32),), (torch.randn(1, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
