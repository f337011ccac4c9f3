"""HTDemucs spectral branch (Mixxx's ONNX path for Demucs): `_ispec` pads the complex spectrogram
with `F.pad(z, (0, 0, 0, 1))` / `F.pad(z, (2, 2))` before `torch.istft`, and `_spec` takes
`torch.stft(..., return_complex=True)`; the PR adds a parallel `onnx_exportable` path that keeps the
spectrum as a real (re, im) tensor because these complex ops do not export. (Encoder/decoder trimmed
to one conv pair; cac=True masking as in htdemucs.py.)

Source: https://github.com/mixxxdj/demucs/pull/1
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mix": {0: "batch"}}
BLIND = "operators-18"


def spectro(x, n_fft=512, hop_length=None, pad=0):
    *other, length = x.shape
    x = x.reshape(-1, length)
    z = torch.stft(x, n_fft * (1 + pad), hop_length or n_fft // 4,
                   window=torch.hann_window(n_fft).to(x), win_length=n_fft,
                   normalized=True, center=True, return_complex=True, pad_mode='reflect')
    _, freqs, frame = z.shape
    return z.view(*other, freqs, frame)


def ispectro(z, hop_length=None, length=None, pad=0):
    *other, freqs, frames = z.shape
    n_fft = 2 * freqs - 2
    z = z.view(-1, freqs, frames)
    win_length = n_fft // (1 + pad)
    x = torch.istft(z, n_fft, hop_length, window=torch.hann_window(win_length).to(z.real),
                    win_length=win_length, normalized=True, length=length, center=True)
    _, length = x.shape
    return x.view(*other, length)


class HTDemucsSpec(nn.Module):
    def __init__(self, sources=4, audio_channels=2, nfft=512, channels=16):
        super().__init__()
        self.sources = sources
        self.audio_channels = audio_channels
        self.nfft = nfft
        self.hop_length = nfft // 4
        self.cac = True
        self.enc = nn.Conv2d(audio_channels * 2, channels, 1)
        self.dec = nn.Conv2d(channels, sources * audio_channels * 2, 1)

    def _spec(self, x):
        hl = self.hop_length
        nfft = self.nfft
        le = int(math.ceil(x.shape[-1] / hl))
        pad = hl // 2 * 3
        x = F.pad(x, (pad, pad + le * hl - x.shape[-1]), mode="reflect")
        z = spectro(x, nfft, hl)[..., :-1, :]
        z = z[..., 2: 2 + le]
        return z

    def _ispec(self, z, length=None, scale=0):
        hl = self.hop_length // (4**scale)
        z = F.pad(z, (0, 0, 0, 1))
        z = F.pad(z, (2, 2))
        pad = hl // 2 * 3
        le = hl * int(math.ceil(length / hl)) + 2 * pad
        x = ispectro(z, hl, length=le)
        x = x[..., pad: pad + length]
        return x

    def _magnitude(self, z):
        B, C, Fr, T = z.shape
        m = torch.view_as_real(z).permute(0, 1, 4, 2, 3)
        m = m.reshape(B, C * 2, Fr, T)
        return m

    def _mask(self, z, m):
        B, S, C, Fr, T = m.shape
        out = m.view(B, S, -1, 2, Fr, T).permute(0, 1, 2, 4, 5, 3)
        out = torch.view_as_complex(out.contiguous())
        return out

    def forward(self, mix):
        length = mix.shape[-1]
        z = self._spec(mix)
        mag = self._magnitude(z)
        B, C, Fq, T = mag.shape
        x = self.dec(torch.relu(self.enc(mag)))
        x = x.view(B, self.sources, -1, Fq, T)
        zout = self._mask(z, x)
        x = self._ispec(zout, length)
        return x


def make_model():
    return HTDemucsSpec().eval()


def example_inputs():
    return (torch.randn(2, 2, 4096),)


def other_inputs():
    return [(torch.randn(1, 2, 4096),), (torch.randn(3, 2, 4096),)]


def probe_inputs():
    return other_inputs()
