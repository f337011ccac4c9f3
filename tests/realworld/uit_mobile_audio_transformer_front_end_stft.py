"""UiT (mobile audio transformer, RicherMans/UIT_Mobile): `forward` runs the `front_end`
(`torchaudio.transforms.MelSpectrogram(...)` + `AmplitudeToDB(top_db=120)`, torchaudio's code copied
in: `torch.stft(..., return_complex=True)`, `.abs().pow(2)`, mel matmul) before init BatchNorm, the
patch embedding and the transformer blocks; converting the .pth to ONNX fails on the stft
("Exporting the operator 'aten::stft' to ONNX opset version 17 is not supported").

Source: https://github.com/RicherMans/UIT_Mobile/issues/3
"""
import math

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-11"


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


class MelSpectrogram(nn.Module):
    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0,
                 f_max=None, n_mels=128, center=True, power=2.0, pad_mode="reflect"):
        super().__init__()
        self.n_fft = n_fft
        self.win_length = win_length if win_length is not None else n_fft
        self.hop_length = hop_length if hop_length is not None else self.win_length // 2
        self.center = center
        self.power = power
        self.pad_mode = pad_mode
        self.register_buffer("window", torch.hann_window(self.win_length))
        f_max = f_max if f_max is not None else float(sample_rate // 2)
        self.register_buffer("fb", melscale_fbanks(n_fft // 2 + 1, f_min, f_max, n_mels, sample_rate))

    def forward(self, waveform):
        shape = waveform.size()
        waveform = waveform.reshape(-1, shape[-1])
        spec_f = torch.stft(input=waveform, n_fft=self.n_fft, hop_length=self.hop_length,
                            win_length=self.win_length, window=self.window, center=self.center,
                            pad_mode=self.pad_mode, normalized=False, onesided=True, return_complex=True)
        spec_f = spec_f.reshape(shape[:-1] + spec_f.shape[-2:])
        specgram = spec_f.abs().pow(self.power)
        return torch.matmul(specgram.transpose(-1, -2), self.fb).transpose(-1, -2)


class AmplitudeToDB(nn.Module):
    def __init__(self, top_db=None):
        super().__init__()
        self.multiplier = 10.0
        self.amin = 1e-10
        self.db_multiplier = math.log10(max(self.amin, 1.0))
        self.top_db = top_db

    def forward(self, x):
        x_db = self.multiplier * torch.log10(torch.clamp(x, min=self.amin))
        x_db -= self.multiplier * self.db_multiplier
        if self.top_db is not None:
            shape = x_db.size()
            packed_channels = shape[-3] if x_db.dim() > 2 else 1
            x_db = x_db.reshape(-1, packed_channels, shape[-2], shape[-1])
            x_db = torch.max(x_db, (x_db.amax(dim=(-3, -2, -1)) - self.top_db).view(-1, 1, 1, 1))
            x_db = x_db.reshape(shape)
        return x_db


class UITBase(nn.Module):
    def __init__(self, outputdim=527, patch_size=16, embed_dim=128, depth=2, num_heads=2, n_mels=64,
                 target_length=102):
        super().__init__()
        self.n_mels = n_mels
        self.target_length = target_length
        self.front_end = nn.Sequential(
            MelSpectrogram(f_min=0, sample_rate=16000, win_length=512, center=True, n_fft=512,
                           f_max=8000, hop_length=160, n_mels=self.n_mels),
            AmplitudeToDB(top_db=120),
        )
        self.init_bn = torch.nn.BatchNorm2d(self.n_mels, momentum=0.01)
        self.proj = nn.Conv2d(1, embed_dim, kernel_size=patch_size, stride=patch_size)
        grid = (n_mels // patch_size, target_length // patch_size)
        self.time_pos_embed = nn.Parameter(torch.randn(1, embed_dim, 1, grid[1]) * .02)
        self.freq_pos_embed = nn.Parameter(torch.randn(1, embed_dim, grid[0], 1) * .02)
        layer = nn.TransformerEncoderLayer(embed_dim, num_heads, embed_dim * 3, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.outputlayer = nn.Sequential(nn.LayerNorm(embed_dim), nn.Linear(embed_dim, outputdim))

    def forward(self, x):
        x = self.front_end(x)
        x = x.unsqueeze(1)                                   # b f t -> b 1 f t
        x = self.init_bn(x.permute(0, 2, 1, 3)).permute(0, 2, 1, 3)
        x = self.proj(x)
        b, c, f, t = x.shape
        x = x + self.time_pos_embed[:, :, :, :t]
        x = x + self.freq_pos_embed
        x = x.flatten(2).transpose(1, 2)                     # b c f t -> b (f t) c
        x = self.blocks(x)
        x = x.mean(1)
        return self.outputlayer(x).sigmoid()


def make_model():
    return UITBase()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 16000),), (torch.randn(1, 16000),)]


def probe_inputs():
    return other_inputs()
