"""Spectral feature head: the model takes `torch.fft.rfft` of a signal and weights the magnitudes
with `torch.fft.rfftfreq` bin frequencies. The report hits `Exporting the operator 'aten::fft_rfft'
to ONNX opset version 14 is not supported` (also with opset 17).

Source: https://github.com/pytorch/pytorch/issues/112382
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "operators-7"


class SpectralFeatures(nn.Module):
    def __init__(self, sample_rate=100.0, hidden=16):
        super().__init__()
        self.sample_rate = sample_rate
        self.head = nn.Linear(2, hidden)

    def forward(self, x):
        spec = torch.fft.rfft(x, dim=-1)
        freqs = torch.fft.rfftfreq(x.shape[-1], d=1.0 / self.sample_rate)
        mag = spec.abs()
        centroid = (mag * freqs).sum(-1) / (mag.sum(-1) + 1e-8)
        energy = mag.pow(2).mean(-1)
        return self.head(torch.stack([centroid, energy], dim=-1))


def make_model():
    return SpectralFeatures()


def example_inputs():
    return (torch.randn(2, 128),)


def other_inputs():
    return [(torch.randn(3, 200),), (torch.randn(1, 77),)]


def probe_inputs():
    return other_inputs()
