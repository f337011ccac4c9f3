"""musical_mel_transform_torch (semitone-spaced "musical mel" filterbank for audio frames): with
`use_conv_fft=False` the forward takes `torch.abs(torch.fft.rfft(windowed_frames, n=...))`; the
project's ONNX test expects that export to raise ("torch.fft.rfft is not supported in ONNX") and
`convert_to_onnx` falls back to the TorchScript exporter for the native-FFT path.

Source: https://github.com/worldveil/musical_mel_transform_torch/blob/293c1e41cb2daa86e6cc77b238776e5728375839/tests/test_onnx_export.py
"""
import math
from typing import Optional

import numpy as np
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"frames": {0: "batch_size"}}
BLIND = "operators-23"


def amplitude_to_DB(x, multiplier, amin, db_multiplier, top_db=None):
    # torchaudio.functional.amplitude_to_DB (top_db=None path)
    x_db = multiplier * torch.log10(torch.clamp(x, min=amin))
    x_db -= multiplier * db_multiplier
    return x_db


class MusicalMelTransform(nn.Module):
    def __init__(
        self,
        sample_rate: int = 44_100,
        frame_size: int = 1_024,
        interval: float = 1.0,
        f_min: Optional[float] = 27.5,  # librosa A0
        f_max: Optional[float] = None,
        passthrough_cutoff_hz: float = 20_000,
        norm: bool = True,
        min_bins: int = 2,
        adaptive: bool = True,
        passthrough_grouping_size: int = 3,
        use_conv_fft: bool = False,
        window_type: str = None,
        power: int = 2,
        to_db: bool = True,
    ):
        super().__init__()
        if f_max is None or f_max > sample_rate / 2:
            f_max = sample_rate / 2
        self.frame_size = frame_size
        self.passthrough_cutoff_hz = passthrough_cutoff_hz
        self.use_conv_fft = use_conv_fft
        self.dtype = torch.float
        self.learnable_weights = None
        self.power = power
        self.to_db = to_db

        bw = sample_rate / frame_size
        bin_freqs = np.fft.rfftfreq(frame_size, 1 / sample_rate).astype(np.float64)
        left_edge = bin_freqs - 0.5 * bw
        right_edge = bin_freqs + 0.5 * bw
        n_bins = bin_freqs.size

        ratio = 2 ** (interval / 12)
        centers = []
        f = f_min
        while f <= min(f_max, self.passthrough_cutoff_hz):
            centers.append(f)
            f *= ratio
        centers = np.asarray(centers, np.float64)

        B = np.zeros((n_bins, centers.size), np.float32)
        r_sqrt = math.sqrt(ratio)
        for k, fc in enumerate(centers):
            fl, fr = fc / r_sqrt, fc * r_sqrt
            effective_min_bins = float(min_bins)
            if adaptive:
                dist = np.min(np.abs(fc - bin_freqs))
                norm_dist = dist / (0.5 * bw + 1e-12)
                if min_bins > 1:
                    effective_min_bins = 1.0 + (min_bins - 1.0) * norm_dist
            if fr - fl < effective_min_bins * bw:
                extra = 0.5 * (effective_min_bins * bw - (fr - fl))
                fl -= extra
                fr += extra
            area_tri = 0.5 * (fr - fl)
            bins = np.where((right_edge > fl) & (left_edge < fr))[0]
            for j in bins:
                a = max(left_edge[j], fl)
                b = min(right_edge[j], fr)
                if b <= a:
                    continue
                if b <= fc:
                    area = ((b - fl) ** 2 - (a - fl) ** 2) / (2 * (fc - fl))
                elif a >= fc:
                    area = ((fr - a) ** 2 - (fr - b) ** 2) / (2 * (fr - fc))
                else:
                    rise = ((fc - fl) ** 2 - (a - fl) ** 2) / (2 * (fc - fl))
                    fall = ((fr - fc) ** 2 - (fr - b) ** 2) / (2 * (fr - fc))
                    area = rise + fall
                B[j, k] = area / (area_tri + 1e-12)

        hi_bins = np.where((bin_freqs >= self.passthrough_cutoff_hz) & (bin_freqs <= f_max))[0]
        if hi_bins.size:
            n_groups = int(np.ceil(hi_bins.size / passthrough_grouping_size))
            hi_B = np.zeros((n_bins, n_groups), np.float32)
            for i in range(n_groups):
                start = i * passthrough_grouping_size
                hi_B[hi_bins[start:start + passthrough_grouping_size], i] = 1.0
            B = np.concatenate([B, hi_B], axis=1)
        B[0, :] = 0.0
        if norm:
            B /= B.sum(axis=0, keepdims=True) + 1e-12

        self.register_buffer("mel_basis", torch.from_numpy(B), persistent=True)
        if window_type == "hann":
            window = torch.hann_window(frame_size, dtype=self.dtype, periodic=False)
        else:
            window = torch.ones(frame_size, dtype=self.dtype)
        self.register_buffer("window", window)

    def forward(self, frames: torch.Tensor):
        windowed_frames = frames * self.window
        mag = torch.abs(torch.fft.rfft(windowed_frames, n=self.window.numel()))

        # Apply power exponent if requested (power=1 -> magnitude, 2 -> power, etc.)
        power = mag ** self.power

        mel = power @ self.mel_basis

        if self.to_db:
            multiplier = 20.0 if self.power == 1 else 10.0
            mel = amplitude_to_DB(mel, multiplier=multiplier, amin=1e-10, db_multiplier=0.0, top_db=None)
            power = amplitude_to_DB(power, multiplier=multiplier, amin=1e-10, db_multiplier=0.0, top_db=None)

        return mel, power


def make_model():
    return MusicalMelTransform(
        sample_rate=44100, frame_size=1024, interval=1.0, f_max=8000.0,
        passthrough_cutoff_hz=4000.0, norm=True, min_bins=2, adaptive=True,
        passthrough_grouping_size=3, use_conv_fft=False, window_type="hann", to_db=True,
    ).eval()


def example_inputs():
    return (torch.randn(1, 1024),)


def other_inputs():
    return [(torch.randn(4, 1024),), (torch.randn(2, 1024),)]


def probe_inputs():
    return other_inputs()
