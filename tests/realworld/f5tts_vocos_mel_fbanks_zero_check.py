"""F5-TTS mel front end: `get_vocos_mel_spectrogram` builds a torchaudio `MelSpectrogram` inside the call,
so `melscale_fbanks` runs during export and its sanity check `if (fb.max(dim=0).values == 0.0).any(): warnings.warn(...)`
branches on tensor values; torch.export stops on the data-dependent guard (the PR makes the check export-friendly;
"Ran into this while trying to export F5-TTS model").

Source: https://github.com/pytorch/audio/pull/3917
"""
import math
import warnings

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"wav": {0: "batch", 1: "samples"}}
BLIND = "domains-13"


# --- torchaudio.functional / transforms, trimmed (htk scale, norm=None) ---
def _hz_to_mel(freq: float) -> float:
    return 2595.0 * math.log10(1.0 + (freq / 700.0))


def _mel_to_hz(mels):
    return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)


def _create_triangular_filterbank(all_freqs, f_pts):
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    zero = torch.zeros(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    return torch.max(zero, torch.min(down_slopes, up_slopes))


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min = _hz_to_mel(f_min)
    m_max = _hz_to_mel(f_max)
    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = _mel_to_hz(m_pts)
    fb = _create_triangular_filterbank(all_freqs, f_pts)
    if (fb.max(dim=0).values == 0.0).any():
        warnings.warn(
            "At least one mel filterbank has all zero values. "
            f"The value for `n_mels` ({n_mels}) may be set too high. "
            f"Or, the value for `n_freqs` ({n_freqs}) may be set too low."
        )
    return fb


class MelSpectrogram(nn.Module):
    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, n_mels=128, power=2.0,
                 center=True, normalized=False, norm=None):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.power = power
        self.center = center
        self.register_buffer("window", torch.hann_window(self.win_length))
        fb = melscale_fbanks(n_fft // 2 + 1, 0.0, float(sample_rate // 2), n_mels, sample_rate)
        self.register_buffer("fb", fb)

    def forward(self, waveform):
        spec_f = torch.stft(waveform, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                            window=self.window, center=self.center, pad_mode="reflect", return_complex=True)
        specgram = spec_f.abs() if self.power == 1.0 else spec_f.abs().pow(self.power)
        return torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


# --- F5-TTS f5_tts/model/modules.py ---
def get_vocos_mel_spectrogram(
    waveform,
    n_fft=1024,
    n_mel_channels=100,
    target_sample_rate=24000,
    hop_length=256,
    win_length=1024,
):
    mel_stft = MelSpectrogram(
        sample_rate=target_sample_rate,
        n_fft=n_fft,
        win_length=win_length,
        hop_length=hop_length,
        n_mels=n_mel_channels,
        power=1,
        center=True,
        normalized=False,
        norm=None,
    ).to(waveform.device)
    if len(waveform.shape) == 3:
        waveform = waveform.squeeze(1)  # 'b 1 nw -> b nw'

    assert len(waveform.shape) == 2

    mel = mel_stft(waveform)
    mel = mel.clamp(min=1e-5).log()
    return mel


class MelSpec(nn.Module):
    def __init__(self, n_fft=1024, hop_length=256, win_length=1024, n_mel_channels=100, target_sample_rate=24_000):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        self.n_mel_channels = n_mel_channels
        self.target_sample_rate = target_sample_rate
        self.extractor = get_vocos_mel_spectrogram
        self.register_buffer("dummy", torch.tensor(0), persistent=False)

    def forward(self, wav):
        if self.dummy.device != wav.device:
            self.to(wav.device)

        mel = self.extractor(
            waveform=wav,
            n_fft=self.n_fft,
            n_mel_channels=self.n_mel_channels,
            target_sample_rate=self.target_sample_rate,
            hop_length=self.hop_length,
            win_length=self.win_length,
        )
        return mel


def make_model():
    return MelSpec().eval()


def example_inputs():
    return (torch.randn(2, 4096),)


def other_inputs():
    return [(torch.randn(3, 5120),), (torch.randn(1, 3000),)]


def probe_inputs():
    return other_inputs()
