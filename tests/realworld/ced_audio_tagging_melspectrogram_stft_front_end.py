"""CED audio tagging (RicherMans/CED): the model's front end is a torchaudio MelSpectrogram +
AmplitudeToDB applied inside forward, so export goes through `torch.stft(..., return_complex=True)`;
the author answers that "the conversion usually fails due to STFT not being supported by Onnx".
(torchaudio's Spectrogram/MelScale/AmplitudeToDB lines are copied in; the ViT is trimmed to a patch
embedding and a linear head.)

Source: https://github.com/RicherMans/CED/issues/6
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-18"


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    # torchaudio.functional.melscale_fbanks (htk scale, no norm)
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    m_min = 2595.0 * math.log10(1.0 + (f_min / 700.0))
    m_max = 2595.0 * math.log10(1.0 + (f_max / 700.0))
    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    return torch.max(torch.zeros(1), torch.min(down_slopes, up_slopes))


class FrontEnd(nn.Module):
    """torchaudio.transforms.MelSpectrogram(f_min=0, sample_rate=16000, win_length=512, center=True,
    n_fft=512, f_max=8000, hop_length=160, n_mels=64) followed by AmplitudeToDB(top_db=120)."""

    def __init__(self, n_fft=512, win_length=512, hop_length=160, n_mels=64, sample_rate=16000):
        super().__init__()
        self.n_fft, self.win_length, self.hop_length = n_fft, win_length, hop_length
        self.register_buffer("window", torch.hann_window(win_length))
        self.register_buffer("fb", melscale_fbanks(n_fft // 2 + 1, 0.0, 8000.0, n_mels, sample_rate))
        self.top_db = 120.0

    def forward(self, waveform):
        spec_f = torch.stft(input=waveform, n_fft=self.n_fft, hop_length=self.hop_length,
                            win_length=self.win_length, window=self.window, center=True,
                            pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
        spec_f = spec_f.abs().pow(2.0)
        mel = torch.matmul(spec_f.transpose(-1, -2), self.fb).transpose(-1, -2)
        x_db = 10.0 * torch.log10(torch.clamp(mel, min=1e-10))
        x_db = torch.max(x_db, (x_db.amax(dim=(-2, -1)) - self.top_db).view(-1, 1, 1))
        return x_db


class CEDTiny(nn.Module):
    def __init__(self, embed_dim=64, n_mels=64, patch=16, num_classes=527):
        super().__init__()
        self.front_end = FrontEnd(n_mels=n_mels)
        self.init_bn = nn.BatchNorm2d(n_mels)
        self.patch_embed = nn.Conv2d(1, embed_dim, kernel_size=patch, stride=patch)
        self.outputlayer = nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, num_classes))

    def forward(self, x):
        x = self.front_end(x)                      # (B, mels, T)
        x = x.unsqueeze(1)                         # (B, 1, mels, T)
        x = self.init_bn(x.transpose(1, 2)).transpose(1, 2)
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        return self.outputlayer(x.mean(1)).sigmoid()


def make_model():
    return CEDTiny().eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 24000),), (torch.randn(1, 12800),)]


def probe_inputs():
    return other_inputs()
