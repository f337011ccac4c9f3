"""On-device speech front-end (a strided Conv1d with a fixed DFT basis, the usual Core ML friendly STFT) that builds
its analysis window in forward with `torch.hamming_window`. The coremltools PR reports that
hamming/blackman/bartlett windows have no converter ("Unsupported fx node hamming_window"), so "any
audio/DSP model that uses one of the other standard windows can't convert"; only hann_window worked.
The same window op is what goes wrong in the ONNX export.

Source: https://github.com/apple/coremltools/pull/2744
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"wav": {0: "batch", 1: "samples"}}
BLIND = "operators-66"


class SpectrogramFrontend(nn.Module):
    def __init__(self, n_fft=256, hop_length=64, n_out=40):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        n_bins = n_fft // 2 + 1
        t = torch.arange(n_fft, dtype=torch.float32)
        k = torch.arange(n_bins, dtype=torch.float32)
        ang = 2 * math.pi * k[:, None] * t[None, :] / n_fft
        self.register_buffer("dft_cos", torch.cos(ang))    # (n_bins, n_fft)
        self.register_buffer("dft_sin", -torch.sin(ang))
        self.proj = nn.Linear(n_bins, n_out)

    def forward(self, wav):
        window = torch.hamming_window(self.n_fft, device=wav.device)
        x = wav.unsqueeze(1)                                             # (B, 1, N)
        re = F.conv1d(x, (self.dft_cos * window).unsqueeze(1), stride=self.hop_length)
        im = F.conv1d(x, (self.dft_sin * window).unsqueeze(1), stride=self.hop_length)
        power = re * re + im * im                                        # (B, F, T)
        feats = torch.log(power + 1e-6).transpose(1, 2)                  # (B, T, F)
        return self.proj(feats)


def make_model():
    return SpectrogramFrontend().eval()


def example_inputs():
    return (torch.randn(2, 4000),)


def other_inputs():
    return [(torch.randn(3, 5120),), (torch.randn(1, 2600),)]


def probe_inputs():
    return other_inputs()
