"""F5-TTS vocoder head (Vocos ISTFTHead, padding="center"): the backbone output is split into log-magnitude
and phase, and the complex spectrogram is built with a Python complex constant, `S = mag * (x + 1j * y)`,
before `torch.istft`. The reporter's dynamo export failed on the `1j` scalar ("Could not determine the dtype
for the input 'data' ... arg=1j").

Source: https://github.com/pytorch/pytorch/issues/137864
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "operators-12"


class ISTFT(nn.Module):
    def __init__(self, n_fft: int, hop_length: int, win_length: int, padding: str = "same"):
        super().__init__()
        if padding not in ["center", "same"]:
            raise ValueError("Padding must be 'center' or 'same'.")
        self.padding = padding
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        window = torch.hann_window(win_length)
        self.register_buffer("window", window)

    def forward(self, spec: torch.Tensor) -> torch.Tensor:
        if self.padding == "center":
            # Fallback to pytorch native implementation
            return torch.istft(spec, self.n_fft, self.hop_length, self.win_length, self.window, center=True)
        raise NotImplementedError


class ISTFTHead(nn.Module):
    def __init__(self, dim: int, n_fft: int, hop_length: int, padding: str = "same"):
        super().__init__()
        out_dim = n_fft + 2
        self.out = torch.nn.Linear(dim, out_dim)
        self.istft = ISTFT(n_fft=n_fft, hop_length=hop_length, win_length=n_fft, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.out(x).transpose(1, 2)
        mag, p = x.chunk(2, dim=1)
        mag = torch.exp(mag)
        mag = torch.clip(mag, max=1e2)  # safeguard to prevent excessively large magnitudes
        # wrapping happens here. These two lines produce real and imaginary value
        x = torch.cos(p)
        y = torch.sin(p)
        S = mag * (x + 1j * y)
        audio = self.istft(S)
        return audio


def make_model():
    return ISTFTHead(dim=64, n_fft=64, hop_length=16, padding="center")


def example_inputs():
    return (torch.randn(1, 40, 64),)


def other_inputs():
    return [(torch.randn(2, 57, 64),), (torch.randn(3, 23, 64),)]


def probe_inputs():
    return other_inputs()
