"""ReDimNet speaker-embedding front end (`MelBanks`: pre-emphasis, torchaudio `MelSpectrogram`
with a Hamming window, log and mean normalisation); `torch.onnx.export` of `ReDimNetWrap` fails in
torchaudio's Spectrogram with "STFT does not currently support complex types" (the spectrogram is
`torch.stft(..., return_complex=True).abs().pow(2)`). (torchaudio's lines copied inline; the
ReDimNet backbone trimmed to a pooled linear head.)

Source: https://github.com/pytorch/pytorch/issues/138313
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
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


class PreEmphasis(nn.Module):
    def __init__(self, coef: float = 0.97):
        super().__init__()
        self.coef = coef
        self.register_buffer("flipped_filter", torch.FloatTensor([-self.coef, 1.0]).unsqueeze(0).unsqueeze(0))

    def forward(self, input: torch.tensor) -> torch.tensor:
        input = input.unsqueeze(1)
        input = F.pad(input, (1, 0), "reflect")
        return F.conv1d(input, self.flipped_filter).squeeze(1)


class MelSpectrogram(nn.Module):
    """torchaudio.transforms.MelSpectrogram (Spectrogram + MelScale), power=2."""

    def __init__(self, sample_rate=16000, n_fft=512, win_length=400, hop_length=160,
                 f_min=20, f_max=7600, n_mels=72, window_fn=torch.hamming_window):
        super().__init__()
        self.n_fft, self.win_length, self.hop_length = n_fft, win_length, hop_length
        self.register_buffer("window", window_fn(win_length))
        self.register_buffer("fb", melscale_fbanks(n_fft // 2 + 1, f_min, f_max, n_mels, sample_rate))

    def forward(self, waveform):
        spec_f = torch.stft(input=waveform, n_fft=self.n_fft, hop_length=self.hop_length,
                            win_length=self.win_length, window=self.window, center=True,
                            pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
        spec_f = spec_f.abs().pow(2.0)
        return torch.matmul(spec_f.transpose(-1, -2), self.fb).transpose(-1, -2)


class MelBanks(nn.Module):
    def __init__(self, n_mels=72):
        super().__init__()
        self.torchfbank = torch.nn.Sequential(PreEmphasis(), MelSpectrogram(n_mels=n_mels))

    def forward(self, x):
        with torch.no_grad():
            x = self.torchfbank(x) + 1e-6
            x = x.log()
            x = x - torch.mean(x, dim=-1, keepdim=True)
        return x.unsqueeze(1)


class ReDimNetWrap(nn.Module):
    def __init__(self, n_mels=72, embed_dim=32):
        super().__init__()
        self.spec = MelBanks(n_mels=n_mels)
        self.backbone = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.GELU())
        self.head = nn.Linear(8 * n_mels, embed_dim)

    def forward(self, x):
        x = self.spec(x)
        x = self.backbone(x)
        x = x.mean(dim=-1).flatten(1)
        return self.head(x)


def make_model():
    return ReDimNetWrap().eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(1, 11200),)]


def probe_inputs():
    return other_inputs()
