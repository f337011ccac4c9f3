"""convasr LogFilterBankFrontend (log-mel front end of a CTC speech recognizer, conv-based STFT for export):
the left padding of the raw waveform picks its mode from the signal length,
`mode = 'reflect' if pad < signal.size(1) else 'constant'`; the ONNX export warns "Converting a tensor to a
Python boolean might cause the trace to be incorrect" on that line and the pad mode is frozen.

Source: https://github.com/vadimkantorov/convasr/pull/71
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"signal": {0: "batch", 1: "samples"}}
BLIND = "domains-7"


def normalize_signal(signal, dim=-1, eps=1e-5, denom_multiplier=1.0):
    signal_max = signal.abs().max(dim=dim, keepdim=True).values + eps
    return signal / (signal_max * denom_multiplier) if signal.numel() > 0 else signal


def pad_center(window, size):
    lpad = (size - window.shape[-1]) // 2
    return F.pad(window, (lpad, size - window.shape[-1] - lpad))


class LogFilterBankFrontend(nn.Module):
    def __init__(self, out_channels=16, sample_rate=8000, window_size=0.02, window_stride=0.01, window="hann_window",
                 preemphasis=0.97, eps=torch.finfo(torch.float16).tiny, normalize_signal=True):
        super().__init__()
        self.preemphasis = preemphasis
        self.normalize_signal = normalize_signal
        self.win_length = int(window_size * sample_rate)
        self.hop_length = int(window_stride * sample_rate)
        self.nfft = 2**math.ceil(math.log2(self.win_length))
        self.freq_cutoff = self.nfft // 2 + 1

        self.register_buffer("window", getattr(torch, window)(self.win_length, periodic=True).float())
        with torch.no_grad():
            mel_basis = torch.rand(out_channels, self.freq_cutoff)  # stands in for librosa.filters.mel
            self.mel = nn.Conv1d(mel_basis.shape[1], mel_basis.shape[0], 1).requires_grad_(False)
            self.mel.weight.copy_(mel_basis.unsqueeze(-1))
            self.mel.bias.fill_(eps)

            fourier_basis = torch.view_as_real(torch.fft.fft(torch.eye(self.nfft), dim=1))
            forward_basis = fourier_basis[:self.freq_cutoff].permute(2, 0, 1).reshape(-1, 1, fourier_basis.shape[1])
            forward_basis = forward_basis * pad_center(self.window, self.nfft)
            self.stft = nn.Conv1d(forward_basis.shape[1], forward_basis.shape[0], forward_basis.shape[2],
                                  bias=False, stride=self.hop_length).requires_grad_(False)
            self.stft.weight.copy_(forward_basis)

    def forward(self, signal, mask=None):
        assert signal.ndim == 2

        signal = signal if signal.is_floating_point() else signal.to(torch.float32)
        signal = normalize_signal(signal) if self.normalize_signal else signal
        signal = torch.cat([signal[..., :1], signal[..., 1:] -
                            self.preemphasis * signal[..., :-1]], dim=-1) if self.preemphasis > 0 else signal
        signal = signal * mask if mask is not None else signal

        pad = self.freq_cutoff - 1
        padded_signal = F.pad(signal.unsqueeze(1), (pad, 0), mode='reflect' if pad < signal.size(1) else 'constant').squeeze(1)
        padded_signal = F.pad(padded_signal, (0, pad), mode='constant', value=0)

        stft_res = self.stft(padded_signal.unsqueeze(dim=1))
        real_squared, imag_squared = (stft_res * stft_res).split(self.freq_cutoff, dim=1)

        power_spectrum = real_squared + imag_squared
        log_mel_features = self.mel(power_spectrum).log()
        return log_mel_features


def make_model():
    return LogFilterBankFrontend().eval()


def example_inputs():
    return (torch.randn(2, 1600),)


def other_inputs():
    # a 2400-sample batch, and a single short record (shorter than the 128-sample reflect pad)
    return [(torch.randn(3, 2400),), (torch.randn(1, 100),)]


def probe_inputs():
    return other_inputs()
