"""Feature extraction exported on its own: `torchaudio.transforms.MelSpectrogram()` with default arguments
(torchaudio's Spectrogram/MelScale code copied in: `torch.stft(..., return_complex=True)`, `.abs().pow(2)`,
then the mel filterbank matmul). The report's export stops at the stft ("Exporting the operator stft to ONNX
opset version 9 is not supported"); the reporter wants the front end and the network in one ONNX graph.

Source: https://github.com/pytorch/audio/issues/982
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"waveform": {0: "batch", 1: "time"}}
BLIND = "operators-12"


def _hz_to_mel(freq):
    return 2595.0 * math.log10(1.0 + (freq / 700.0))


def _mel_to_hz(mels):
    return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min = _hz_to_mel(f_min)
    m_max = _hz_to_mel(f_max)
    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = _mel_to_hz(m_pts)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    zero = torch.zeros(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    return torch.max(zero, torch.min(down_slopes, up_slopes))


def spectrogram(waveform, pad, window, n_fft, hop_length, win_length, power, normalized,
                center=True, pad_mode="reflect", onesided=True):
    if pad > 0:
        waveform = torch.nn.functional.pad(waveform, (pad, pad), "constant")
    # pack batch
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])
    spec_f = torch.stft(input=waveform, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                        window=window, center=center, pad_mode=pad_mode, normalized=False,
                        onesided=onesided, return_complex=True)
    # unpack batch
    spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
    if normalized:
        spec_f /= window.pow(2.0).sum().sqrt()
    if power is not None:
        if power == 1.0:
            return spec_f.abs()
        return spec_f.abs().pow(power)
    return spec_f


class Spectrogram(nn.Module):
    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, power=2.0, normalized=False):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", torch.hann_window(self.win_length))
        self.pad = pad
        self.power = power
        self.normalized = normalized

    def forward(self, waveform):
        return spectrogram(waveform, self.pad, self.window, self.n_fft, self.hop_length,
                           self.win_length, self.power, self.normalized)


class MelScale(nn.Module):
    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201):
        super().__init__()
        f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.register_buffer("fb", melscale_fbanks(n_stft, f_min, f_max, n_mels, sample_rate))

    def forward(self, specgram):
        # (..., time, freq) dot (freq, n_mels) -> (..., n_mels, time)
        mel_specgram = torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)
        return mel_specgram


class MelSpectrogram(nn.Module):
    def __init__(self, sample_rate=16000, n_fft=400, n_mels=128):
        super().__init__()
        self.spectrogram = Spectrogram(n_fft=n_fft, power=2.0)
        self.mel_scale = MelScale(n_mels, sample_rate, 0.0, None, n_fft // 2 + 1)

    def forward(self, waveform):
        specgram = self.spectrogram(waveform)
        return self.mel_scale(specgram)


def make_model():
    return MelSpectrogram()


def example_inputs():
    return (torch.randn(1, 16000),)


def other_inputs():
    return [(torch.randn(2, 12000),), (torch.randn(3, 8800),)]


def probe_inputs():
    return other_inputs()
