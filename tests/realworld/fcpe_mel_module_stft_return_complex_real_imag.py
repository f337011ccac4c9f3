"""FCPE (torchfcpe) pitch estimator front end: MelModule takes `torch.stft(..., return_complex=True)`
and builds the magnitude from `spec.real` / `spec.imag`; the issue asks for an ONNX model and notes the
mel extractor had to be split off because of the complex STFT (return a float tensor instead).

Source: https://github.com/CNChTu/FCPE/issues/9
"""
import numpy as np
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"y": {0: "batch", 1: "n_samples"}}
BLIND = "operators-17"


def dynamic_range_compression_torch(x, C=1, clip_val=1e-5):
    return torch.log(torch.clamp(x, min=clip_val) * C)


class HannWindow(torch.nn.Module):
    def __init__(self, win_size):
        super().__init__()
        self.register_buffer('window', torch.hann_window(win_size), persistent=False)

    def forward(self):
        return self.window


class MelModule(torch.nn.Module):
    def __init__(self, sr=16000, n_mels=128, n_fft=1024, win_size=1024, hop_length=160, clip_val=1e-5):
        super().__init__()
        self.target_sr = sr
        self.n_mels = n_mels
        self.n_fft = n_fft
        self.win_size = win_size
        self.hop_length = hop_length
        self.clip_val = clip_val
        # librosa_mel_fn(...) in the original; any (n_mels, n_fft // 2 + 1) filterbank will do here
        self.register_buffer('mel_basis', torch.rand(n_mels, n_fft // 2 + 1), persistent=False)
        self.hann_window = torch.nn.ModuleDict({'0': HannWindow(win_size)})

    @torch.no_grad()
    def forward(self, y):  # y: (B, T, 1); the original __call__ also takes key_shift=0, speed=1, center=False
        key_shift, speed, center = 0, 1, False
        n_fft = self.n_fft
        win_size = self.win_size
        hop_length = self.hop_length
        clip_val = self.clip_val

        factor = 2 ** (key_shift / 12)
        n_fft_new = int(np.round(n_fft * factor))
        win_size_new = int(np.round(win_size * factor))
        hop_length_new = int(np.round(hop_length * speed))

        y = y.squeeze(-1)
        key_shift_key = str(key_shift)
        hann_window_tensor = self.hann_window[key_shift_key]()

        pad_left = (win_size_new - hop_length_new) // 2
        pad_right = (win_size_new - hop_length_new + 1) // 2
        y = torch.nn.functional.pad(y.unsqueeze(1), (pad_left, pad_right), mode='reflect')
        y = y.squeeze(1)

        spec = torch.stft(y, n_fft_new, hop_length=hop_length_new, win_length=win_size_new,
                          window=hann_window_tensor,
                          center=center, pad_mode='reflect', normalized=False, onesided=True, return_complex=True)
        spec = torch.sqrt(spec.real.pow(2) + spec.imag.pow(2) + 1e-9)
        spec = torch.matmul(self.mel_basis, spec)
        spec = dynamic_range_compression_torch(spec, clip_val=clip_val)
        spec = spec.transpose(-1, -2)
        return spec  # (B, T, n_mels)


def make_model():
    return MelModule().eval()


def example_inputs():
    return (torch.rand(1, 16000, 1) * 1.8 - 0.9,)


def other_inputs():
    return [(torch.rand(2, 12000, 1) * 1.8 - 0.9,), (torch.rand(3, 20800, 1) * 1.8 - 0.9,)]


def probe_inputs():
    return other_inputs()
