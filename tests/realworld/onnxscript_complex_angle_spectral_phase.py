"""Spectral front-end that keeps the phase of a complex STFT-like spectrum: `torch.fft.rfft` of
windowed frames, then `spec.abs()` and `torch.angle(spec)`; the report says torchlib lacks complex
variants of `angle` (and `_conj`, `clone`, `matmul`), so the dynamo export of complex tensors
(carried as real tensors with a trailing dim of 2) cannot translate `aten.angle` correctly.

Source: https://github.com/microsoft/onnxscript/issues/2720
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"frames": {0: "batch", 1: "num_frames"}}
BLIND = "operators-6"


class MagPhaseFeatures(nn.Module):
    def __init__(self, n_fft=64):
        super().__init__()
        self.register_buffer("window", torch.hann_window(n_fft))
        self.proj = nn.Linear(2 * (n_fft // 2 + 1), 32)

    def forward(self, frames):
        # frames: (batch, num_frames, n_fft)
        spec = torch.fft.rfft(frames * self.window, dim=-1)
        mag = spec.abs()
        phase = torch.angle(spec)
        feats = torch.cat([torch.log1p(mag), phase], dim=-1)
        return self.proj(feats)


def make_model():
    return MagPhaseFeatures()


def example_inputs():
    return (torch.randn(2, 10, 64),)


def other_inputs():
    return [(torch.randn(3, 17, 64),), (torch.randn(1, 5, 64),)]


def probe_inputs():
    return other_inputs()
