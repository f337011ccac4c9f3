"""asteroid-filterbanks `TorchSTFTFB` (torch.stft/istft-equivalent filterbank) in an Encoder -> mask -> Decoder
enhancement model: the free/param/STFT filterbanks convert to ONNX but the torch_stft one does not; the
maintainers narrow it to the hooks that pad the waveform (`pre_analysis` -> `pad_all_shapes`, an
`@script_if_tracing` helper branching on `x.ndim`) and, in synthesis, `ola_with_wdiv` (frame count from the
length, `if min_mask.any(): warnings.warn(...)`, boolean-mask assignment `wav[~min_mask] = ...`).
One utterance at a time (the (1, 1, L) window mask only indexes a batch of 1); the length is dynamic.

Source: https://github.com/asteroid-team/asteroid-filterbanks/issues/10
"""
import warnings
from typing import List

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"wav": {2: "time"}}
BLIND = "domains-31"


def script_if_tracing(fn):
    # asteroid_filterbanks.scripting.script_if_tracing
    def wrapper(*args, **kwargs):
        if not torch.jit.is_tracing():
            return fn(*args, **kwargs)
        compiled_fn = torch.jit.script(wrapper.__original_fn)
        return compiled_fn(*args, **kwargs)
    wrapper.__original_fn = fn
    return wrapper


@script_if_tracing
def pad_all_shapes(x: torch.Tensor, pad_shape: List[int], mode: str = "reflect") -> torch.Tensor:
    if x.ndim < 3:
        return F.pad(x[None, None], pad=pad_shape, mode=mode).squeeze(0).squeeze(0)
    return F.pad(x, pad=pad_shape, mode=mode)


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
    wsq_ola = wsq_ola[..., start:]

    min_mask = wsq_ola.abs() < 1e-11
    if min_mask.any():
        # Warning instead of error. Might be trimmed afterward.
        warnings.warn(
            f"Minimum NOLA should be above 1e-11, Found {wsq_ola.abs().min()}. "
            f"Dividind only where possible.",
            RuntimeWarning,
        )
    wav[~min_mask] = wav[~min_mask] / wsq_ola[~min_mask]
    return wav


class TorchSTFTFB(nn.Module):
    def __init__(self, n_filters=64, kernel_size=64, stride=16, center=True, pad_mode="reflect"):
        super().__init__()
        self.n_filters, self.kernel_size, self.stride = n_filters, kernel_size, stride
        self.center, self.pad_mode = center, pad_mode
        self.cutoff = int(n_filters / 2 + 1)
        window = np.hanning(kernel_size + 1)[:-1] ** 0.5
        filters = np.fft.fft(np.eye(n_filters))
        filters /= 0.5 * np.sqrt(kernel_size * n_filters / stride)
        filters = np.vstack([np.real(filters[: self.cutoff]), np.imag(filters[: self.cutoff])])
        filters[0, :] /= np.sqrt(2)
        filters[n_filters // 2, :] /= np.sqrt(2)
        self.register_buffer("_filters", torch.from_numpy(filters * window).unsqueeze(1).float())
        self.register_buffer("torch_window", torch.from_numpy(window).float())

    def pre_analysis(self, wav):
        if not self.center:
            return wav
        pad_shape = [self.kernel_size // 2, self.kernel_size // 2]
        wav = pad_all_shapes(wav, pad_shape=pad_shape, mode=self.pad_mode)
        return wav

    def post_analysis(self, spec):
        spec[..., 0, :] *= np.sqrt(2)
        spec[..., self.n_filters // 2, :] *= np.sqrt(2)
        return spec * (self.kernel_size // 2) ** 0.5

    def pre_synthesis(self, spec):
        spec = spec.clone()
        spec[..., 0, :] /= np.sqrt(2)
        spec[..., self.n_filters // 2, :] /= np.sqrt(2)
        return spec / (self.kernel_size // 2) ** 0.5

    def post_synthesis(self, wav):
        return ola_with_wdiv(wav, window=self.torch_window, kernel_size=self.kernel_size,
                             stride=self.stride, center=self.center)


class STFTMaskingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fb = TorchSTFTFB()
        n_feats = 2 * self.fb.cutoff
        self.masker = nn.Sequential(nn.Conv1d(n_feats, n_feats, 3, padding=1), nn.Sigmoid())

    def forward(self, wav):
        fb = self.fb
        spec = fb.post_analysis(F.conv1d(fb.pre_analysis(wav), fb._filters, stride=fb.stride))
        spec = spec * self.masker(spec)
        spec = fb.pre_synthesis(spec)
        out = F.conv_transpose1d(spec, fb._filters, stride=fb.stride)
        return fb.post_synthesis(out)


def make_model():
    return STFTMaskingModel().eval()


def example_inputs():
    return (torch.randn(1, 1, 800),)


def other_inputs():
    return [(torch.randn(1, 1, 1200),), (torch.randn(1, 1, 528),)]


def probe_inputs():
    return other_inputs()
