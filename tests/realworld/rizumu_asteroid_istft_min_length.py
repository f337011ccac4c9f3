"""Rizumu music/speech source separation model: asteroid-filterbanks STFT -> band-split mask net (Linear +
BLSTM) -> asteroid ISTFT with `self.istft(results, initial_size)`, where `initial_size = x.shape[-1]`; the
Decoder trims with `length = min(length, wav.shape[-1])`, which torch.onnx.export reports as a TracerWarning
("Converting a tensor to a Python boolean"), and the exported model's audio differs from PyTorch's (extra
noise); the overlap-add normalisation `ola_with_wdiv` (fold sized from `wav.shape[-1]`, masked division) is
one of the library's `script_if_tracing` functions.

Source: https://github.com/microsoft/onnxruntime/issues/23219
"""
import functools
from typing import List, Optional

import numpy as np
import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {1: "length"}}
BLIND = "domains-15"

norm_bias = 1e-8


# ---- asteroid_filterbanks 0.4.0 (scripting.py, enc_dec.py, torch_stft_fb.py, transforms.py), trimmed ----
def script_if_tracing(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not torch._C._is_tracing():
            return fn(*args, **kwargs)
        compiled_fn = torch.jit.script(wrapper.__original_fn)  # type: ignore
        return compiled_fn(*args, **kwargs)

    wrapper.__original_fn = fn  # type: ignore
    return wrapper


@script_if_tracing
def _restore_freqs_an(spec, n_filters: int):
    spec[..., 0, :] *= 2 ** 0.5
    spec[..., n_filters // 2, :] *= 2 ** 0.5
    return spec


@script_if_tracing
def _restore_freqs_syn(spec, n_filters: int):
    spec[..., 0, :] /= 2 ** 0.5
    spec[..., n_filters // 2, :] /= 2 ** 0.5
    return spec


def square_ola(window: torch.Tensor, kernel_size: int, stride: int, n_frame: int) -> torch.Tensor:
    window_sq = window.pow(2).view(1, -1, 1).repeat(1, 1, n_frame)
    return torch.nn.functional.fold(
        window_sq, (1, (n_frame - 1) * stride + kernel_size), (1, kernel_size), stride=(1, stride)
    ).squeeze(2)


@script_if_tracing
def ola_with_wdiv(wav, window, kernel_size: int, stride: int, center: bool = True) -> torch.Tensor:
    n_frame = 1 + (wav.shape[-1] - kernel_size) // stride
    wsq_ola = square_ola(window, kernel_size=kernel_size, stride=stride, n_frame=n_frame)
    view_shape = [1 for _ in wav.shape[:-1]] + [-1]
    wsq_ola = wsq_ola.view(view_shape)
    start = kernel_size // 2 if center else 0
    wav = wav[..., start:]
    wsq_ola = wsq_ola[..., start:].expand_as(wav)
    min_mask = wsq_ola.abs() < 1e-11
    wav[~min_mask] = wav[~min_mask] / wsq_ola[~min_mask]
    return wav


class TorchSTFTFB(nn.Module):
    def __init__(self, n_fft, hop_length, window, center=True):
        super().__init__()
        self.n_filters = self.kernel_size = n_fft
        self.stride, self.center = hop_length, center
        cutoff = n_fft // 2 + 1
        filters = np.fft.fft(np.eye(n_fft))
        filters /= 0.5 * np.sqrt(n_fft * n_fft / self.stride)
        filters = np.vstack([np.real(filters[:cutoff]), np.imag(filters[:cutoff])])
        filters[0, :] /= np.sqrt(2)
        filters[n_fft // 2, :] /= np.sqrt(2)
        self.register_buffer("_filters", torch.from_numpy(filters * window.numpy()).unsqueeze(1).float())
        self.register_buffer("torch_window", window.float())

    def pre_analysis(self, wav):
        return F.pad(wav, (self.kernel_size // 2, self.kernel_size // 2), mode="reflect")

    def post_analysis(self, spec):
        spec = _restore_freqs_an(spec, n_filters=self.n_filters)
        return spec * 0.5 * (self.kernel_size * self.n_filters / self.stride) ** 0.5

    def pre_synthesis(self, spec):
        spec = spec.clone()
        spec = _restore_freqs_syn(spec, n_filters=self.n_filters)
        return spec / ((self.stride * self.n_filters / self.kernel_size) ** 0.5)

    def post_synthesis(self, wav):
        return ola_with_wdiv(wav, window=self.torch_window, kernel_size=self.kernel_size,
                             stride=self.stride, center=self.center)


class Encoder(nn.Module):
    def __init__(self, filterbank):
        super().__init__()
        self.filterbank = filterbank

    def forward(self, waveform):
        waveform = self.filterbank.pre_analysis(waveform)
        spec = F.conv1d(waveform, self.filterbank._filters, stride=self.filterbank.stride)
        return self.filterbank.post_analysis(spec)


class Decoder(nn.Module):
    def __init__(self, filterbank):
        super().__init__()
        self.filterbank = filterbank

    def forward(self, spec, length: Optional[int] = None) -> torch.Tensor:
        spec = self.filterbank.pre_synthesis(spec)
        view_as = (-1,) + spec.shape[-2:]
        wav = F.conv_transpose1d(spec.reshape(view_as), self.filterbank._filters, stride=self.filterbank.stride)
        wav = wav.view(spec.shape[:-2] + (-1,))
        wav = self.filterbank.post_synthesis(wav)
        if length is not None:
            length = min(length, wav.shape[-1])
            return wav[..., :length]
        return wav


def to_torchaudio(tensor, dim: int = -2):
    return torch.stack(torch.chunk(tensor, 2, dim=dim), dim=-1)


def from_torchaudio(tensor, dim: int = -2):
    dim = dim - 1 if dim < 0 else dim
    return torch.cat(torch.chunk(tensor, 2, dim=-1), dim=dim).squeeze(-1)


# ---- Rizumu model (rizumu/model.py), trimmed ----
class AsteroidSTFT(nn.Module):
    def __init__(self, fb):
        super(AsteroidSTFT, self).__init__()
        self.enc = Encoder(fb)

    def forward(self, x):
        aux = self.enc(x)
        return to_torchaudio(aux)


class AsteroidISTFT(nn.Module):
    def __init__(self, fb):
        super(AsteroidISTFT, self).__init__()
        self.dec = Decoder(fb)

    def forward(self, x: Tensor, length: Optional[int] = None) -> Tensor:
        aux = from_torchaudio(x)
        x = self.dec(aux, length=length)
        return x


def make_filterbanks(n_fft=64, n_hop=16):
    window = nn.Parameter(torch.hann_window(n_fft), requires_grad=False)
    fb = TorchSTFTFB(n_fft, n_hop, window.data)
    return AsteroidSTFT(fb), AsteroidISTFT(fb)


class RizumuBase(nn.Module):
    def __init__(self, size: int, hidden_size: int = 32):
        super(RizumuBase, self).__init__()
        self.re1 = nn.Sequential(nn.Linear(size, hidden_size), nn.LayerNorm(hidden_size), nn.Tanh())
        self.lstm = nn.LSTM(hidden_size, hidden_size // 2, batch_first=True, bidirectional=True)
        self.rd2 = nn.Sequential(nn.Linear(hidden_size, size), nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.permute(4, 0, 1, 3, 2)
        real, imag = torch.split(x, 1, dim=0)
        real, imag = real.squeeze(dim=0), imag.squeeze(dim=0)
        a, b, c, d = real.shape
        mask = self.rd2(self.lstm(self.re1(real).reshape(a * b, c, -1))[0]).reshape(a, b, c, d)
        x = torch.cat(((real * mask).unsqueeze(-1), (imag * mask).unsqueeze(-1)), dim=-1)
        return x.permute(0, 1, 3, 2, 4)


class RizumuModel(nn.Module):
    def __init__(self, n_fft: int = 64):
        super(RizumuModel, self).__init__()
        self.stft, self.istft = make_filterbanks(n_fft=n_fft, n_hop=n_fft // 4)
        self.model = RizumuBase(size=(n_fft // 2) + 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        initial_size = x.shape[-1]
        was_unsqueezed = False
        if x.ndim == 2:
            x = x.unsqueeze(0)
            was_unsqueezed = True
        x = self.stft(x)
        if x.ndim == 4:
            x = x.unsqueeze(dim=1)
        results = self.model(x)
        x = self.istft(results, initial_size)
        if was_unsqueezed:
            x = x.squeeze(dim=0)
        return x


def make_model():
    return RizumuModel().eval()


def example_inputs():
    return (torch.randn(1, 1000),)


def other_inputs():
    return [(torch.randn(1, 1500),), (torch.randn(1, 733),)]


def probe_inputs():
    return other_inputs()
