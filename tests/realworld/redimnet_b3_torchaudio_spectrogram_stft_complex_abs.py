"""ReDimNet speaker embedder (torch.hub 'b3'): its MelBanks front end calls torchaudio's
`F.spectrogram`, i.e. `torch.stft(..., return_complex=True)` followed by `.abs().pow(power)`.
Exporting the model to ONNX fails inside that spectrogram; the workaround posted in the thread is
to patch torchaudio to `return_complex=False` and take the magnitude by hand. (torchaudio's
spectrogram/mel-scale lines copied inline; the ReDimNet backbone trimmed to a pooled linear head.)

Source: https://github.com/IDRnD/redimnet/issues/13
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-16"


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


def spectrogram(waveform, pad, window, n_fft, hop_length, win_length, power, normalized,
                center=True, pad_mode="reflect", onesided=True):
    """torchaudio.functional.spectrogram (frame_length_norm=False, window_norm=False)."""
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])
    # default values are consistent with librosa.core.spectrum._spectrogram
    spec_f = torch.stft(
        input=waveform,
        n_fft=n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=window,
        center=center,
        pad_mode=pad_mode,
        normalized=normalized,
        onesided=onesided,
        return_complex=True,
    )
    spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
    return spec_f.abs().pow(power)


class MelSpectrogram(nn.Module):
    def __init__(self, sample_rate=16000, n_fft=512, win_length=400, hop_length=160,
                 f_min=20.0, f_max=7600.0, n_mels=72):
        super().__init__()
        self.n_fft, self.win_length, self.hop_length = n_fft, win_length, hop_length
        self.register_buffer("window", torch.hamming_window(win_length))
        self.register_buffer("fb", melscale_fbanks(n_fft // 2 + 1, f_min, f_max, n_mels, sample_rate))

    def forward(self, waveform):
        specgram = spectrogram(waveform, 0, self.window, self.n_fft, self.hop_length,
                               self.win_length, 2.0, False)
        return torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


class PreEmphasis(nn.Module):
    def __init__(self, coef: float = 0.97):
        super().__init__()
        self.register_buffer("flipped_filter", torch.FloatTensor([-coef, 1.0]).unsqueeze(0).unsqueeze(0))

    def forward(self, input):
        input = input.unsqueeze(1)
        input = F.pad(input, (1, 0), "reflect")
        return F.conv1d(input, self.flipped_filter).squeeze(1)


class MelBanks(nn.Module):
    def __init__(self, n_mels=72):
        super().__init__()
        self.torchfbank = nn.Sequential(PreEmphasis(), MelSpectrogram(n_mels=n_mels))

    def forward(self, x):
        with torch.no_grad():
            x = self.torchfbank(x) + 1e-6
            x = x.log()
            x = x - torch.mean(x, dim=-1, keepdim=True)
        return x.unsqueeze(1)


class ReDimNetB3(nn.Module):
    def __init__(self, n_mels=72, embed_dim=32):
        super().__init__()
        self.spec = MelBanks(n_mels=n_mels)
        self.backbone = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Linear(8 * n_mels, embed_dim)

    def forward(self, x):
        x = self.spec(x)
        x = self.backbone(x)
        x = x.mean(dim=-1).flatten(1)
        return self.head(x)


def make_model():
    return ReDimNetB3().eval()


def example_inputs():
    return (torch.randn(1, 32000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(2, 11200),)]


def probe_inputs():
    return other_inputs()
