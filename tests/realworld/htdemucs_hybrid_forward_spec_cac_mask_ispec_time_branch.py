"""HTDemucs (demucs v4) hybrid forward: the frequency branch takes `th.stft(..., return_complex=True)`
of the padded mix (`_spec`), moves the complex dim to channels with `torch.view_as_real` (`_magnitude`,
cac=True), and after the U-Net rebuilds a complex spectrogram with `torch.view_as_complex` (`_mask`)
and goes back with `th.istft` (`_ispec`) to add it to the time branch. The reporter could not export
the model because of these FFT (real-to-complex) operations (PyTorch 2.0.1, opset 18) and asked how
to export it without them. (Encoders/decoders and the cross-transformer are one conv pair per branch.)

Source: https://github.com/facebookresearch/demucs/issues/530
"""
import math

import torch
import torch as th
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mix": {0: "batch"}}       # htdemucs runs on fixed training-length segments
BLIND = "operators-45"


def pad1d(x, paddings, mode='constant', value=0.):
    x0 = x
    length = x.shape[-1]
    padding_left, padding_right = paddings
    if mode == 'reflect':
        max_pad = max(padding_left, padding_right)
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            extra_pad_right = min(padding_right, extra_pad)
            extra_pad_left = extra_pad - extra_pad_right
            paddings = (padding_left - extra_pad_left, padding_right - extra_pad_right)
            x = F.pad(x, (extra_pad_left, extra_pad_right))
    out = F.pad(x, paddings, mode, value)
    assert out.shape[-1] == length + padding_left + padding_right
    assert (out[..., padding_left: padding_left + length] == x0).all()
    return out


def spectro(x, n_fft=512, hop_length=None, pad=0):
    *other, length = x.shape
    x = x.reshape(-1, length)
    z = th.stft(x, n_fft * (1 + pad), hop_length or n_fft // 4, window=th.hann_window(n_fft).to(x),
                win_length=n_fft, normalized=True, center=True, return_complex=True, pad_mode='reflect')
    _, freqs, frame = z.shape
    return z.view(*other, freqs, frame)


def ispectro(z, hop_length=None, length=None, pad=0):
    *other, freqs, frames = z.shape
    n_fft = 2 * freqs - 2
    z = z.view(-1, freqs, frames)
    win_length = n_fft // (1 + pad)
    x = th.istft(z, n_fft, hop_length, window=th.hann_window(win_length).to(z.real),
                 win_length=win_length, normalized=True, length=length, center=True)
    _, length = x.shape
    return x.view(*other, length)


class HTDemucs(nn.Module):
    def __init__(self, sources=("drums", "bass", "other", "vocals"), audio_channels=2, nfft=512, channels=16):
        super().__init__()
        self.sources = sources
        self.audio_channels = audio_channels
        self.nfft = nfft
        self.hop_length = nfft // 4
        self.cac = True
        S = len(sources)
        chin_z = audio_channels * 2
        self.encoder = nn.Sequential(nn.Conv2d(chin_z, channels, 1), nn.GELU())
        self.decoder = nn.Conv2d(channels, S * chin_z, 1)
        self.tencoder = nn.Sequential(nn.Conv1d(audio_channels, channels, 1), nn.GELU())
        self.tdecoder = nn.Conv1d(channels, S * audio_channels, 1)

    def _spec(self, x):
        hl = self.hop_length
        nfft = self.nfft
        x0 = x  # noqa
        assert hl == nfft // 4
        le = int(math.ceil(x.shape[-1] / hl))
        pad = hl // 2 * 3
        x = pad1d(x, (pad, pad + le * hl - x.shape[-1]), mode="reflect")
        z = spectro(x, nfft, hl)[..., :-1, :]
        assert z.shape[-1] == le + 4, (z.shape, x.shape, le)
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
        if self.cac:
            B, C, Fr, T = z.shape
            m = torch.view_as_real(z).permute(0, 1, 4, 2, 3)
            m = m.reshape(B, C * 2, Fr, T)
        else:
            m = z.abs()
        return m

    def _mask(self, z, m):
        B, S, C, Fr, T = m.shape
        out = m.view(B, S, -1, 2, Fr, T).permute(0, 1, 2, 4, 5, 3)
        out = torch.view_as_complex(out.contiguous())
        return out

    def forward(self, mix):
        length = mix.shape[-1]
        z = self._spec(mix)
        mag = self._magnitude(z).to(mix.device)
        x = mag
        B, C, Fq, T = x.shape
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True)
        x = (x - mean) / (1e-5 + std)
        xt = mix
        meant = xt.mean(dim=(1, 2), keepdim=True)
        stdt = xt.std(dim=(1, 2), keepdim=True)
        xt = (xt - meant) / (1e-5 + stdt)

        x = self.decoder(self.encoder(x))
        xt = self.tdecoder(self.tencoder(xt))

        S = len(self.sources)
        x = x.view(B, S, -1, Fq, T)
        x = x * std[:, None] + mean[:, None]
        zout = self._mask(z, x)
        x = self._ispec(zout, length)
        xt = xt.view(B, S, -1, length)
        xt = xt * stdt[:, None] + meant[:, None]
        x = xt + x
        return x


def make_model():
    return HTDemucs().eval()


def example_inputs():
    return (torch.randn(2, 2, 4096),)


def other_inputs():
    return [(torch.randn(3, 2, 4096),), (torch.randn(1, 2, 4096),)]


def probe_inputs():
    return other_inputs()
