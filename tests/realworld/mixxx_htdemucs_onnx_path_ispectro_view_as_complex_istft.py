"""Mixxx's ONNX-exportable HTDemucs fork (music source separation): with `onnx_exportable=True`
the spectrogram is kept as a real [..., 2] tensor (conv-based STFT, cac masking without complex
numbers), but the inverse `ispectro` still did `th.view_as_complex(z)` followed by
`th.istft(..., normalized=True, length=length, center=True)`. The PR replaces that with a real-valued
`ISTFT_Process` because iSTFT on complex tensors does not export to ONNX. This is the code before it.

Source: https://github.com/mixxxdj/demucs/pull/4
"""
import math

import torch
import torch as th
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mix": {0: "batch", 2: "samples"}}
BLIND = "operators-63"


class STFT_Process(nn.Module):
    def __init__(self, n_fft=64, hop_len=16, normalized=True, center=True, pad_mode="reflect"):
        super().__init__()
        self.n_fft = n_fft
        self.hop_len = hop_len
        self.center = center
        self.pad_mode = pad_mode
        self.half_n_fft = n_fft // 2
        window = torch.hann_window(n_fft).float()
        time_steps = torch.arange(self.n_fft, dtype=torch.float32).unsqueeze(0)
        frequencies = torch.arange(self.half_n_fft + 1, dtype=torch.float32).unsqueeze(1)
        omega = 2 * torch.pi * frequencies * time_steps / n_fft
        cos_kernel = (torch.cos(omega) * window.unsqueeze(0)).unsqueeze(1)
        sin_kernel = (-torch.sin(omega) * window.unsqueeze(0)).unsqueeze(1)
        if normalized:
            cos_kernel = cos_kernel / torch.sqrt(torch.tensor([n_fft], dtype=torch.float32))
            sin_kernel = sin_kernel / torch.sqrt(torch.tensor([n_fft], dtype=torch.float32))
        self.register_buffer('cos_kernel', cos_kernel)
        self.register_buffer('sin_kernel', sin_kernel)

    def forward(self, x):
        if self.center:
            x_padded = torch.nn.functional.pad(x, (self.half_n_fft, self.half_n_fft), mode=self.pad_mode)
        else:
            x_padded = x
        real_part = torch.nn.functional.conv1d(x_padded, self.cos_kernel, stride=self.hop_len)
        image_part = torch.nn.functional.conv1d(x_padded, self.sin_kernel, stride=self.hop_len)
        return torch.stack((real_part, image_part), dim=-1)


def ispectro(z, hop_length=None, length=None, pad=0, onnx_exportable=False):
    # B, S, -1, Fr, T, 2 shape
    *other, freqs, frames, dim = z.shape   # dim is 2
    n_fft = 2 * freqs - 2
    z = z.view(-1, freqs, frames, dim)
    win_length = n_fft // (1 + pad)
    z = th.view_as_complex(z)  # Convert to complex tensor
    x = th.istft(z,
                 n_fft,
                 hop_length,
                 window=th.hann_window(win_length).to(z.real),
                 win_length=win_length,
                 normalized=True,
                 length=length,
                 center=True)
    _, length = x.shape
    return x.view(*other, length)


class HTDemucsSpecBranch(nn.Module):
    def __init__(self, nfft=64, sources=2, audio_channels=2):
        super().__init__()
        self.nfft = nfft
        self.hop_length = nfft // 4
        self.sources = sources
        self.audio_channels = audio_channels
        self.stft = STFT_Process(n_fft=nfft, hop_len=self.hop_length)
        # stand-in for the encoder/transformer/decoder: spectrogram in, cac spectrograms out
        self.net = nn.Conv2d(2 * audio_channels, 2 * audio_channels * sources, 3, padding=1)

    def _spec(self, x):
        hl = self.hop_length
        le = int(math.ceil(x.shape[-1] / hl))
        pad = hl // 2 * 3
        x = F.pad(x, (pad, pad + le * hl - x.shape[-1]), mode="reflect")
        *other, length = x.shape
        z = self.stft(x.reshape(-1, 1, length))
        _, freqs, frame, dim = z.shape
        z = z.view(*other, freqs, frame, dim)[..., :-1, :, :]
        z = z[..., 2: 2 + le, :]
        return z

    def _magnitude(self, z):
        B, C, Fr, T, dim = z.shape
        m = z.permute(0, 1, 4, 2, 3)
        return m.reshape(B, C * 2, Fr, T)

    def _mask(self, z, m):
        B, S, C, Fr, T = m.shape
        out = m.view(B, S, -1, 2, Fr, T).permute(0, 1, 2, 4, 5, 3)
        return out.contiguous()  # (B, S, -1, Fr, T, 2)

    def _ispec(self, z, length=None, scale=0):
        hl = self.hop_length // (4**scale)
        z = F.pad(z, (0, 0, 0, 0, 0, 1))
        z = F.pad(z, (0, 0, 2, 2))
        pad = hl // 2 * 3
        le = hl * int(math.ceil(length / hl)) + 2 * pad
        x = ispectro(z, hl, length=le, onnx_exportable=True)
        x = x[..., pad: pad + length]
        return x

    def forward(self, mix):
        length = mix.shape[-1]
        z = self._spec(mix)
        mag = self._magnitude(z)
        x = self.net(mag)
        B, C, Fq, T = x.shape
        x = x.view(B, self.sources, -1, Fq, T)
        zout = self._mask(z, x)
        return self._ispec(zout, length)


def make_model():
    return HTDemucsSpecBranch().eval()


def example_inputs():
    return (torch.randn(2, 2, 480),)


def other_inputs():
    return [(torch.randn(3, 2, 640),), (torch.randn(1, 2, 400),)]


def probe_inputs():
    return other_inputs()
