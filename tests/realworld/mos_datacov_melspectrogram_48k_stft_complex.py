"""Audio-quality (MOS) front end `DataCov`: a `torchaudio.transforms.MelSpectrogram(sample_rate=
48000, n_fft=1536, hop_length=768, f_min=20, f_max=20000)` on 12 s of 48 kHz audio, exported with
`torch.onnx.export` to run on Android; the export fails with "STFT does not currently support
complex types" (torchaudio's Spectrogram calls `torch.stft(..., return_complex=True)`).
(torchaudio's Spectrogram/MelScale lines copied inline.)

Source: https://github.com/pytorch/pytorch/issues/107677
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x1": {0: "batch", 1: "samples"}}
BLIND = "operators-6"


def _hz_to_mel(freq):
    return 2595.0 * math.log10(1.0 + (freq / 700.0))


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_pts = torch.linspace(_hz_to_mel(f_min), _hz_to_mel(f_max), n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    return torch.max(torch.zeros(1), torch.min(down_slopes, up_slopes))


class Spectrogram(nn.Module):
    def __init__(self, n_fft=400, win_length=None, hop_length=None, power=2.0):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.register_buffer("window", torch.hann_window(self.win_length))
        self.power = power

    def forward(self, waveform):
        spec_f = torch.stft(
            input=waveform, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
            window=self.window, center=True, pad_mode="reflect", normalized=False, onesided=True,
            return_complex=True,
        )
        return spec_f.abs().pow(self.power)


class MelScale(nn.Module):
    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201):
        super().__init__()
        f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.register_buffer("fb", melscale_fbanks(n_stft, f_min, f_max, n_mels, sample_rate))

    def forward(self, specgram):
        return torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


class MelSpectrogram(nn.Module):
    def __init__(self, sample_rate=16000, n_fft=400, hop_length=None, f_min=0.0, f_max=None, n_mels=128):
        super().__init__()
        self.spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length, power=2.0)
        self.mel_scale = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1)

    def forward(self, waveform):
        return self.mel_scale(self.spectrogram(waveform))


class DataCov(nn.Module):
    def __init__(self):
        super(DataCov, self).__init__()

        self.transform = nn.Sequential(
            MelSpectrogram(sample_rate=48000, n_fft=1536, hop_length=768, f_min=20, f_max=20000)
        )

    def forward(self, x1):
        return self.transform(x1)


def make_model():
    return DataCov().eval()


def example_inputs():
    return (torch.randn(1, 48000 * 2),)


def other_inputs():
    return [(torch.randn(2, 48000 * 3),), (torch.randn(3, 40000),)]


def probe_inputs():
    return other_inputs()
