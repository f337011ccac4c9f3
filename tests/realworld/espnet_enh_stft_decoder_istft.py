"""ESPnet speech-enhancement model (STFT encoder -> mask separator -> STFT decoder): the decoder
goes back to the waveform with `torch.istft` on the masked complex spectrum; the report asks how to
export a model that contains `torch.istft()` to ONNX, which the exporters do not support.

Source: https://github.com/espnet/espnet_onnx/issues/64
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"speech_mix": {0: "batch", 1: "samples"}}
BLIND = "operators-13"


class Stft(nn.Module):
    def __init__(self, n_fft=512, win_length=None, hop_length=128, window="hann", center=True,
                 normalized=False, onesided=True):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = n_fft if win_length is None else win_length
        self.hop_length = hop_length
        self.center = center
        self.normalized = normalized
        self.onesided = onesided
        self.window = window

    def forward(self, input):
        window_func = getattr(torch, f"{self.window}_window")
        window = window_func(self.win_length, dtype=input.dtype, device=input.device)
        output = torch.stft(input, n_fft=self.n_fft, win_length=self.win_length,
                            hop_length=self.hop_length, center=self.center, window=window,
                            normalized=self.normalized, onesided=self.onesided, return_complex=True)
        return output.transpose(1, 2)  # (B, T, F)

    def inverse(self, input, length=None):
        window_func = getattr(torch, f"{self.window}_window")
        window = window_func(self.win_length, dtype=input.real.dtype, device=input.device)
        input = input.transpose(1, 2)  # (B, F, T)
        wavs = torch.istft(input, n_fft=self.n_fft, hop_length=self.hop_length,
                           win_length=self.win_length, window=window, center=self.center,
                           normalized=self.normalized, onesided=self.onesided, length=length)
        return wavs


class ESPnetEnhancementModel(nn.Module):
    def __init__(self, n_fft=512, hidden=128):
        super().__init__()
        self.stft = Stft(n_fft=n_fft, hop_length=128)
        bins = n_fft // 2 + 1
        self.rnn = nn.LSTM(bins, hidden, batch_first=True)
        self.linear = nn.Linear(hidden, bins)

    def forward(self, speech_mix):
        feature = self.stft(speech_mix)                       # encoder
        x, _ = self.rnn(feature.abs())                          # separator
        mask = torch.sigmoid(self.linear(x))
        predicted = feature * mask
        return self.stft.inverse(predicted, length=speech_mix.shape[1])  # decoder


def make_model():
    return ESPnetEnhancementModel().eval()


def example_inputs():
    return (torch.randn(2, 8000),)


def other_inputs():
    return [(torch.randn(3, 12000),), (torch.randn(1, 6400),)]


def probe_inputs():
    return other_inputs()
