"""Audio-classifier preprocessing wrapped for ONNX (to run it in a Flutter app): the waveform is
scaled by 1/32768 and passed through `torchaudio.transforms.MelSpectrogram(sample_rate=44100,
n_fft=1024, hop_length=512, n_mels=40)` (torchaudio's code copied in: `torch.stft(...,
return_complex=True)` then `.abs().pow(2)` and the mel matmul); the conversion fails with
"STFT does not currently support complex types".

Source: https://github.com/pytorch/audio/issues/3897
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"audio_signal": {0: "batch", 1: "samples"}}
BLIND = "operators-11"


def _hz_to_mel(freq):
    return 2595.0 * math.log10(1.0 + (freq / 700.0))


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min = _hz_to_mel(f_min)
    m_max = _hz_to_mel(f_max)
    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
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
                        window=window, center=center, pad_mode=pad_mode, normalized=normalized,
                        onesided=onesided, return_complex=True)
    # unpack batch
    spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
    if power == 1.0:
        return spec_f.abs()
    return spec_f.abs().pow(power)


class MelSpectrogram(nn.Module):
    def __init__(self, sample_rate=16000, n_fft=400, hop_length=None, n_mels=128, f_min=0.0, power=2.0):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.power = power
        self.register_buffer("window", torch.hann_window(self.win_length))
        self.register_buffer("fb", melscale_fbanks(n_fft // 2 + 1, f_min, float(sample_rate // 2), n_mels, sample_rate))

    def forward(self, waveform):
        specgram = spectrogram(waveform, 0, self.window, self.n_fft, self.hop_length, self.win_length,
                               self.power, False)
        mel_specgram = torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)
        return mel_specgram


class MelSpectrogramTransformer(torch.nn.Module):
    def __init__(self, sample_rate=44100, n_fft=1024, hop_length=512, n_mels=40):
        super().__init__()
        self.mel_transform = MelSpectrogram(
            sample_rate=sample_rate,
            n_fft=n_fft,
            hop_length=hop_length,
            n_mels=n_mels
        )

    def forward(self, audio_signal):
        audio_signal = audio_signal / 32768.0
        mel_spec = self.mel_transform(audio_signal)
        return mel_spec


def make_model():
    return MelSpectrogramTransformer()


def example_inputs():
    return (torch.randn(2, 22050) * 8000,)


def other_inputs():
    return [(torch.randn(3, 30000) * 8000,), (torch.randn(1, 11025) * 8000,)]


def probe_inputs():
    return other_inputs()
