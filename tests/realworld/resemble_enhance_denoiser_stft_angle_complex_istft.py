"""Resemble-Enhance denoiser: forward does `torch.stft(..., return_complex=True)`, splits the
spectrum into mag / cos(angle) / sin(angle), predicts a mask with a UNet, then rebuilds
`torch.complex(real, imag)`, pads it with `F.pad(s, (0, 1), "replicate")` and calls `torch.istft`.
The ONNX port's author could only export a stub whose forward takes (mag, cos, sin) and returns the
separated (mag, cos, sin), leaving the complex STFT / angle / ISTFT steps outside the graph.
(UNet trimmed to two convs.)

Source: https://github.com/skeskinen/resemble-denoise-onnx-inference/issues/1
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-18"


class Denoiser(nn.Module):
    @property
    def stft_cfg(self) -> dict:
        hop_size = self.hop_size
        return dict(hop_length=hop_size, n_fft=hop_size * 4, win_length=hop_size * 4)

    @property
    def eps(self):
        return 1e-7

    def __init__(self, hop_size=64):
        super().__init__()
        self.hop_size = hop_size
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.GELU(), nn.Conv2d(16, 3, 3, padding=1))

    def _stft(self, x):
        dtype = x.dtype
        device = x.device
        window = torch.hann_window(self.stft_cfg["win_length"], device=x.device)
        s = torch.stft(x.float(), **self.stft_cfg, window=window, return_complex=True)  # (b f t+1)
        s = s[..., :-1]  # (b f t)
        mag = s.abs()  # (b f t)
        phi = s.angle()  # (b f t)
        cos = phi.cos()  # (b f t)
        sin = phi.sin()  # (b f t)
        mag = mag.to(dtype=dtype, device=device)
        cos = cos.to(dtype=dtype, device=device)
        sin = sin.to(dtype=dtype, device=device)
        return mag, cos, sin

    def _istft(self, mag, cos, sin):
        device = mag.device
        dtype = mag.dtype
        real = mag * cos  # (b f t)
        imag = mag * sin  # (b f t)
        s = torch.complex(real, imag)  # (b f t)
        s = F.pad(s, (0, 1), "replicate")  # (b f t+1)
        window = torch.hann_window(self.stft_cfg["win_length"], device=s.device)
        x = torch.istft(s, **self.stft_cfg, window=window, return_complex=False)
        return x.to(dtype=dtype, device=device)

    def _magphase(self, real, imag):
        mag = (real.pow(2) + imag.pow(2) + self.eps).sqrt()
        cos = real / mag
        sin = imag / mag
        return mag, cos, sin

    def _predict(self, mag, cos, sin):
        x = torch.stack([mag, cos, sin], dim=1)  # (b 3 f t)
        mag_mask, real, imag = self.net(x).unbind(1)  # (b 3 f t)
        mag_mask = mag_mask.sigmoid()  # (b f t)
        real = real.tanh()  # (b f t)
        imag = imag.tanh()  # (b f t)
        _, cos_res, sin_res = self._magphase(real, imag)  # (b f t)
        return mag_mask, sin_res, cos_res

    def _separate(self, mag, cos, sin, mag_mask, cos_res, sin_res):
        sep_mag = F.relu(mag * mag_mask)
        sep_cos = cos * cos_res - sin * sin_res
        sep_sin = sin * cos_res + cos * sin_res
        return sep_mag, sep_cos, sep_sin

    def forward(self, x):
        mag, cos, sin = self._stft(x)  # (b 2f t)
        mag_mask, sin_res, cos_res = self._predict(mag, cos, sin)
        sep_mag, sep_cos, sep_sin = self._separate(mag, cos, sin, mag_mask, cos_res, sin_res)
        o = self._istft(sep_mag, sep_cos, sep_sin)
        npad = x.shape[-1] - o.shape[-1]
        o = F.pad(o, (0, npad))
        return o


def make_model():
    return Denoiser().eval()


def example_inputs():
    return (torch.randn(2, 8000),)


def other_inputs():
    return [(torch.randn(3, 11000),), (torch.randn(1, 6400),)]


def probe_inputs():
    return other_inputs()
