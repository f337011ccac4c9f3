"""Spectral-masking model that analyses with `torch.stft`, masks the magnitude, keeps the phase
(`angle`), rebuilds the complex spectrum with `torch.polar` and resynthesises with `torch.istft`;
the report asks how to put `torch.stft` and `torch.istft` into an ONNX model, which the exporter
cannot do.

Source: https://github.com/pytorch/pytorch/issues/65666
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-13"


class MaskNet(nn.Module):
    def __init__(self, n_fft=400, hop_length=160):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        bins = n_fft // 2 + 1
        self.register_buffer("window", torch.hamming_window(n_fft))
        self.mask = nn.Sequential(nn.Linear(bins, 256), nn.ReLU(), nn.Linear(256, bins), nn.Sigmoid())

    def forward(self, x):
        spec = torch.stft(x, n_fft=self.n_fft, hop_length=self.hop_length, window=self.window,
                          return_complex=True)
        mag = torch.abs(spec)
        phase = torch.angle(spec)
        mask = self.mask(torch.log1p(mag).transpose(1, 2)).transpose(1, 2)
        enhanced = torch.polar(mag * mask, phase)
        return torch.istft(enhanced, n_fft=self.n_fft, hop_length=self.hop_length,
                           window=self.window, length=x.shape[-1])


def make_model():
    return MaskNet().eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(1, 8000),)]


def probe_inputs():
    return other_inputs()
