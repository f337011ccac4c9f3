"""Spectrogram front end that builds its analysis window in forward with
`torch.kaiser_window(n_fft, periodic=False, beta=...)` before a magnitude STFT; the report (the
opset-17 tracking issue, raised for models that compute spectrograms from audio) lists
`kaiser_window` and `bartlett_window` among the window operators the exporter does not support.

Source: https://github.com/pytorch/pytorch/issues/81075
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"audio": {0: "batch", 1: "samples"}}
BLIND = "operators-13"


class KaiserSpectrogram(nn.Module):
    def __init__(self, n_fft=512, hop_length=128, beta=8.0, n_classes=10):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.beta = beta
        self.head = nn.Linear(n_fft // 2 + 1, n_classes)

    def forward(self, audio):
        window = torch.kaiser_window(self.n_fft, periodic=False, beta=self.beta,
                                     device=audio.device)
        spec = torch.stft(audio, self.n_fft, hop_length=self.hop_length, window=window,
                          return_complex=True)
        power = spec.abs().pow(2)                           # (B, F, T)
        logspec = torch.log(power + 1e-6)
        return self.head(logspec.mean(dim=-1))


def make_model():
    return KaiserSpectrogram().eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 20000),), (torch.randn(1, 9000),)]


def probe_inputs():
    return other_inputs()
