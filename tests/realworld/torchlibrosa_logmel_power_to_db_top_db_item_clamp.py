"""torchlibrosa front end (as in the audioset_tagging_cnn / PANNs README): `LogmelFilterBank.power_to_db`
clamps the log-mel with `min=log_spec.max().item() - self.top_db` (default top_db=80.0); users exporting the
mel front end to ONNX hit errors in power_to_db and replace it with pure-tensor ops (`torch.max(log_melspec,
log_melspec.max() - top_db)`), since the `.item()` threshold is recorded as a constant of the example audio.

Source: https://github.com/qiuqiangkong/torchlibrosa/pull/3
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"waveform": {0: "batch", 1: "samples"}}
BLIND = "domains-47"


class STFT(nn.Module):
    def __init__(self, n_fft=512, hop_length=160, center=True, pad_mode='reflect'):
        super().__init__()
        self.n_fft = n_fft
        self.center = center
        self.pad_mode = pad_mode
        out_channels = n_fft // 2 + 1
        fft_window = np.hanning(n_fft + 1)[:-1]  # librosa.filters.get_window('hann', n_fft, fftbins=True)
        n = np.arange(n_fft)
        w = np.exp(-2 * np.pi * 1j * np.outer(n, n) / n_fft)[:, :out_channels]  # dft matrix
        self.conv_real = nn.Conv1d(1, out_channels, n_fft, stride=hop_length, bias=False)
        self.conv_imag = nn.Conv1d(1, out_channels, n_fft, stride=hop_length, bias=False)
        self.conv_real.weight.data = torch.Tensor(np.real(w * fft_window[:, None]).T)[:, None, :]
        self.conv_imag.weight.data = torch.Tensor(np.imag(w * fft_window[:, None]).T)[:, None, :]

    def forward(self, input):
        x = input[:, None, :]
        if self.center:
            x = F.pad(x, pad=(self.n_fft // 2, self.n_fft // 2), mode=self.pad_mode)
        real = self.conv_real(x)
        imag = self.conv_imag(x)
        real = real[:, None, :, :].transpose(2, 3)
        imag = imag[:, None, :, :].transpose(2, 3)
        return real, imag


class Spectrogram(nn.Module):
    def __init__(self, n_fft=512, hop_length=160, power=2.0):
        super().__init__()
        self.power = power
        self.stft = STFT(n_fft=n_fft, hop_length=hop_length)

    def forward(self, input):
        (real, imag) = self.stft.forward(input)
        spectrogram = real ** 2 + imag ** 2
        if self.power == 2.0:
            pass
        else:
            spectrogram = spectrogram ** (self.power / 2.0)
        return spectrogram


class LogmelFilterBank(nn.Module):
    def __init__(self, n_fft=512, n_mels=64, is_log=True, ref=1.0, amin=1e-10, top_db=80.0):
        super().__init__()
        self.is_log = is_log
        self.ref = ref
        self.amin = amin
        self.top_db = top_db
        # librosa.filters.mel(...).T stand-in: a fixed non-negative (n_fft // 2 + 1, n_mels) matrix
        g = torch.Generator().manual_seed(0)
        self.melW = nn.Parameter(torch.rand(n_fft // 2 + 1, n_mels, generator=g) / n_mels, requires_grad=False)

    def forward(self, input):
        mel_spectrogram = torch.matmul(input, self.melW)
        if self.is_log:
            output = self.power_to_db(mel_spectrogram)
        else:
            output = mel_spectrogram
        return output

    def power_to_db(self, input):
        ref_value = self.ref
        log_spec = 10.0 * torch.log10(torch.clamp(input, min=self.amin, max=np.inf))
        log_spec -= 10.0 * np.log10(np.maximum(self.amin, ref_value))
        if self.top_db is not None:
            if self.top_db < 0:
                raise ValueError('top_db must be non-negative')
            log_spec = torch.clamp(log_spec, min=log_spec.max().item() - self.top_db, max=np.inf)
        return log_spec


class MelFrontEnd(nn.Module):
    def __init__(self):
        super().__init__()
        self.spectrogram_extractor = Spectrogram(n_fft=512, hop_length=160)
        self.logmel_extractor = LogmelFilterBank(n_fft=512, n_mels=64)
        self.bn0 = nn.BatchNorm2d(64)

    def forward(self, waveform):
        x = self.spectrogram_extractor(waveform)  # (batch, 1, time_steps, freq_bins)
        x = self.logmel_extractor(x)               # (batch, 1, time_steps, mel_bins)
        x = x.transpose(1, 3)
        x = self.bn0(x)
        x = x.transpose(1, 3)
        return x


def _audio(batch, samples, loud):
    t = torch.arange(samples) / 16000.0
    tone = loud * torch.sin(2 * math.pi * 440.0 * t)
    x = tone.repeat(batch, 1) + 1e-6 * torch.randn(batch, samples)
    x[:, : samples // 3] = 1e-7 * torch.randn(batch, samples // 3)  # near-silent lead-in
    return x


def make_model():
    return MelFrontEnd().eval()


def example_inputs():
    return (_audio(2, 8000, 1.0),)


def other_inputs():
    return [(_audio(3, 12000, 0.01),), (_audio(1, 5600, 30.0),)]


def probe_inputs():
    return other_inputs()
