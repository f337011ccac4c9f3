"""ReDimNet speaker embedder (finetuned S model): the MelBanks front end runs PreEmphasis and a
torchaudio MelSpectrogram (torch.stft with center=True, reflect padding, hamming window) inside
forward. torch.onnx.export(opset_version=17, dynamic_axes={"feats": {0: "B"}}) fails in the STFT
symbolic right after the reflect Pad node.

Source: https://github.com/IDRnD/redimnet/issues/20
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-15"


def _hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def _mel_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    # torchaudio.functional.melscale_fbanks (htk scale, no norm)
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_pts = torch.linspace(_hz_to_mel(f_min), _hz_to_mel(f_max), n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return torch.max(torch.zeros(1), torch.min(down, up))


class PreEmphasis(torch.nn.Module):
    def __init__(self, coef: float = 0.97):
        super().__init__()
        self.coef = coef
        self.register_buffer('flipped_filter', torch.FloatTensor([-self.coef, 1.]).unsqueeze(0).unsqueeze(0))

    def forward(self, input: torch.tensor) -> torch.tensor:
        input = input.unsqueeze(1)
        input = F.pad(input, (1, 0), 'reflect')
        return F.conv1d(input, self.flipped_filter).squeeze(1)


class MelSpectrogram(nn.Module):
    # torchaudio.transforms.MelSpectrogram: Spectrogram(power=2, center=True, pad_mode="reflect") + MelScale
    def __init__(self, sample_rate=16000, n_fft=512, win_length=400, hop_length=160, f_min=20, f_max=7600,
                 window_fn=torch.hamming_window, n_mels=72):
        super().__init__()
        self.n_fft, self.win_length, self.hop_length = n_fft, win_length, hop_length
        self.register_buffer("window", window_fn(win_length))
        self.register_buffer("fb", _mel_fbanks(n_fft // 2 + 1, f_min, f_max, n_mels, sample_rate))

    def forward(self, waveform):
        shape = waveform.size()
        waveform = waveform.reshape(-1, shape[-1])
        spec_f = torch.stft(input=waveform, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                            window=self.window, center=True, pad_mode="reflect", normalized=False, onesided=True,
                            return_complex=True)
        spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
        specgram = spec_f.abs().pow(2.0)
        return torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


class MelBanks(nn.Module):
    def __init__(self, n_mels=72):
        super().__init__()
        self.torchfbank = torch.nn.Sequential(nn.Identity(), PreEmphasis(), MelSpectrogram(n_mels=n_mels))

    def forward(self, x):
        with torch.no_grad():
            x = self.torchfbank(x) + 1e-6
            x = x.log()
            x = x - torch.mean(x, dim=-1, keepdim=True)
        return x


class ReDimNetWrap(nn.Module):
    def __init__(self, n_mels=72, embed_dim=192):
        super().__init__()
        self.spec = MelBanks(n_mels)
        self.backbone = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(16 * n_mels * 2, embed_dim)

    def forward(self, x):
        x = self.spec(x).unsqueeze(1)
        x = self.backbone(x).flatten(1, 2)
        stats = torch.cat([x.mean(-1), x.std(-1)], dim=-1)
        return self.head(stats)


def make_model():
    return ReDimNetWrap()


def example_inputs():
    return (torch.randn(1, 32000),)


def other_inputs():
    return [(torch.randn(3, 32000),), (torch.randn(2, 32000),)]


def probe_inputs():
    return other_inputs()
