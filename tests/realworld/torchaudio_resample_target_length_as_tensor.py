"""torchaudio `transforms.Resample` (sinc interpolation, kernel precomputed in __init__) in front of a small
speech encoder: `_apply_sinc_resample_kernel` trims the conv output with
`target_length = torch.ceil(torch.as_tensor(new_freq * length / orig_freq)).long()`, a tensor built in
forward from the Python input length, so the exported model only supports the example's input length.

Source: https://github.com/pytorch/audio/pull/3473
"""
import math

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"waveform": {0: "batch", 1: "samples"}}
BLIND = "domains-7"


def _get_sinc_resample_kernel(orig_freq, new_freq, gcd, lowpass_filter_width=6, rolloff=0.99, dtype=None):
    orig_freq = int(orig_freq) // gcd
    new_freq = int(new_freq) // gcd
    base_freq = min(orig_freq, new_freq)
    base_freq *= rolloff
    width = math.ceil(lowpass_filter_width * orig_freq / base_freq)
    idx_dtype = dtype if dtype is not None else torch.float64
    idx = torch.arange(-width, width + orig_freq, dtype=idx_dtype)[None, None] / orig_freq
    t = torch.arange(0, -new_freq, -1, dtype=dtype)[:, None, None] / new_freq + idx
    t *= base_freq
    t = t.clamp_(-lowpass_filter_width, lowpass_filter_width)
    window = torch.cos(t * math.pi / lowpass_filter_width / 2) ** 2  # sinc_interp_hann
    t *= math.pi
    scale = base_freq / orig_freq
    kernels = torch.where(t == 0, torch.tensor(1.0).to(t), t.sin() / t)
    kernels *= window * scale
    if dtype is None:
        kernels = kernels.to(dtype=torch.float32)
    return kernels, width


def _apply_sinc_resample_kernel(waveform, orig_freq, new_freq, gcd, kernel, width):
    if not waveform.is_floating_point():
        raise TypeError(f"Expected floating point type for waveform tensor, but received {waveform.dtype}.")

    orig_freq = int(orig_freq) // gcd
    new_freq = int(new_freq) // gcd

    # pack batch
    shape = waveform.size()
    waveform = waveform.view(-1, shape[-1])

    num_wavs, length = waveform.shape
    waveform = torch.nn.functional.pad(waveform, (width, width + orig_freq))
    resampled = torch.nn.functional.conv1d(waveform[:, None], kernel, stride=orig_freq)
    resampled = resampled.transpose(1, 2).reshape(num_wavs, -1)
    target_length = torch.ceil(torch.as_tensor(new_freq * length / orig_freq)).long()
    resampled = resampled[..., :target_length]

    # unpack batch
    resampled = resampled.view(shape[:-1] + resampled.shape[-1:])
    return resampled


class Resample(nn.Module):
    def __init__(self, orig_freq=24000, new_freq=16000):
        super().__init__()
        self.orig_freq = orig_freq
        self.new_freq = new_freq
        self.gcd = math.gcd(int(self.orig_freq), int(self.new_freq))
        kernel, self.width = _get_sinc_resample_kernel(self.orig_freq, self.new_freq, self.gcd)
        self.register_buffer("kernel", kernel)

    def forward(self, waveform):
        if self.orig_freq == self.new_freq:
            return waveform
        return _apply_sinc_resample_kernel(waveform, self.orig_freq, self.new_freq, self.gcd, self.kernel, self.width)


class ResampledSpeechEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.resample = Resample(24000, 16000)
        self.conv = nn.Conv1d(1, 8, 5, padding=2)

    def forward(self, waveform):
        wav16k = self.resample(waveform)
        return torch.tanh(self.conv(wav16k.unsqueeze(1)))


def make_model():
    return ResampledSpeechEncoder().eval()


def example_inputs():
    return (torch.randn(2, 2400),)


def other_inputs():
    return [(torch.randn(3, 3601),), (torch.randn(1, 1000),)]


def probe_inputs():
    return other_inputs()
