"""STFT front-end that calls `signals.stft(n_fft=512, hop_length=160, win_length=320, return_complex=True,
window=self._window, pad_mode="constant")` and returns the complex spectrogram; `torch.export.export` works
but the ONNX export of the STFT fails.

Source: https://github.com/pytorch/pytorch/issues/113504
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"signals": {0: "batch", 1: "samples"}}
BLIND = "operators-10"


class STFTModel(nn.Module):
    def __init__(self):
        super().__init__()
        self._window = torch.hann_window(window_length=320)

    def forward(self, signals: torch.Tensor) -> torch.Tensor:
        x = signals.stft(
            n_fft=512,
            hop_length=160,
            win_length=320,
            return_complex=True,
            window=self._window,
            pad_mode="constant",
        )
        return x


def make_model():
    return STFTModel()


def example_inputs():
    # Shape [B, T] audio signals
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 8000),), (torch.randn(1, 24160),)]


def probe_inputs():
    return other_inputs()
