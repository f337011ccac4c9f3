"""asteroid-filterbanks STFT Encoder (TorchSTFTFB): `multishape_conv1d`, `pad_all_shapes` and `_restore_freqs_an`
are wrapped in the library's own `script_if_tracing` decorator, so torch.onnx.export scripts them mid-trace;
the report says the exported model then fails in onnxruntime with a Reshape error (removing the decorator,
or calling `disable_script_if_tracing()`, makes it work).

Source: https://github.com/asteroid-team/asteroid-filterbanks/issues/15
"""
import functools
from typing import Tuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"waveform": {0: "batch", 2: "time"}}
BLIND = "domains-15"

SCRIPT_ENABLED = True


def is_tracing():
    return torch._C._is_tracing()


def script_if_tracing(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not is_tracing() or not SCRIPT_ENABLED:
            # Not tracing, don't do anything
            return fn(*args, **kwargs)

        compiled_fn = torch.jit.script(wrapper.__original_fn)  # type: ignore
        return compiled_fn(*args, **kwargs)

    wrapper.__original_fn = fn  # type: ignore
    wrapper.__script_if_tracing_wrapper = True  # type: ignore
    return wrapper


@script_if_tracing
def pad_all_shapes(x: torch.Tensor, pad_shape: Tuple[int, int], mode: str = "reflect") -> torch.Tensor:
    if x.ndim == 1:
        return F.pad(x[None, None], pad=pad_shape, mode=mode).squeeze(0).squeeze(0)
    if x.ndim == 2:
        return F.pad(x[None], pad=pad_shape, mode=mode).squeeze(0)
    if x.ndim == 3:
        return F.pad(x, pad=pad_shape, mode=mode)
    pad_shape = (pad_shape[0],) + (0,) * (x.ndim - 1)
    return F.pad(x, pad=pad_shape, mode=mode)


@script_if_tracing
def _restore_freqs_an(spec, n_filters: int):
    spec[..., 0, :] *= 2 ** 0.5
    spec[..., n_filters // 2, :] *= 2 ** 0.5
    return spec


def batch_packed_1d_conv(inp: torch.Tensor, filters: torch.Tensor, stride: int = 1, padding: int = 0):
    # Output should be (batch, channels, freq, conv_time)
    batched_conv = F.conv1d(inp.view(-1, 1, inp.shape[-1]), filters, stride=stride, padding=padding)
    output_shape = inp.shape[:-1] + batched_conv.shape[-2:]
    return batched_conv.view(output_shape)


@script_if_tracing
def multishape_conv1d(waveform: torch.Tensor, filters: torch.Tensor, stride: int, padding: int = 0,
                      as_conv1d: bool = True) -> torch.Tensor:
    if waveform.ndim == 1:
        return F.conv1d(waveform[None, None], filters, stride=stride, padding=padding).squeeze()
    elif waveform.ndim == 2:
        return F.conv1d(waveform.unsqueeze(1), filters, stride=stride, padding=padding)
    elif waveform.ndim == 3:
        batch, channels, time_len = waveform.shape
        if channels == 1 and as_conv1d:
            return F.conv1d(waveform, filters, stride=stride, padding=padding)
        else:
            return batch_packed_1d_conv(waveform, filters, stride=stride, padding=padding)
    else:
        return batch_packed_1d_conv(waveform, filters, stride=stride, padding=padding)


class TorchSTFTFB(nn.Module):
    def __init__(self, n_filters, kernel_size, stride=None, window=None, center=True, pad_mode="reflect"):
        super().__init__()
        self.n_filters, self.kernel_size = n_filters, kernel_size
        self.stride = stride if stride else kernel_size // 2
        self.center, self.pad_mode = center, pad_mode
        self.cutoff = int(n_filters / 2 + 1)
        self.window = np.hanning(kernel_size + 1)[:-1] ** 0.5 if window is None else window
        filters = np.fft.fft(np.eye(n_filters))
        filters /= 0.5 * np.sqrt(kernel_size * n_filters / self.stride)
        filters = np.vstack([np.real(filters[: self.cutoff]), np.imag(filters[: self.cutoff])])
        filters[0, :] /= np.sqrt(2)
        filters[n_filters // 2, :] /= np.sqrt(2)
        self.register_buffer("_filters", torch.from_numpy(filters * self.window).unsqueeze(1).float())

    def filters(self):
        return self._filters

    def pre_analysis(self, wav):
        if not self.center:
            return wav
        pad_shape = (self.kernel_size // 2, self.kernel_size // 2)
        return pad_all_shapes(wav, pad_shape=pad_shape, mode=self.pad_mode)

    def post_analysis(self, spec):
        spec = _restore_freqs_an(spec, n_filters=self.n_filters)
        return spec * 0.5 * (self.kernel_size * self.n_filters / self.stride) ** 0.5


class Encoder(nn.Module):
    def __init__(self, filterbank, as_conv1d=True, padding=0):
        super().__init__()
        self.filterbank = filterbank
        self.stride = filterbank.stride
        self.as_conv1d = as_conv1d
        self.padding = padding

    def forward(self, waveform):
        filters = self.filterbank.filters()
        waveform = self.filterbank.pre_analysis(waveform)
        spec = multishape_conv1d(waveform, filters=filters, stride=self.stride, padding=self.padding,
                                 as_conv1d=self.as_conv1d)
        return self.filterbank.post_analysis(spec)


def make_model():
    window = np.hanning(64 + 1)[:-1] ** 0.5
    fb = TorchSTFTFB(n_filters=64, kernel_size=64, center=True, stride=32, window=window)
    return Encoder(fb).eval()


def example_inputs():
    return (torch.rand(1, 2, 1111),)


def other_inputs():
    return [(torch.rand(2, 2, 1500),), (torch.rand(3, 2, 700),)]


def probe_inputs():
    return other_inputs()
