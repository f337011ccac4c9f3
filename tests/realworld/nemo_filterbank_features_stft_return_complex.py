"""NeMo ASR preprocessor (FilterbankFeatures): preemphasis, then `torch.stft(..., return_complex=True,
pad_mode="constant")`, `torch.view_as_real` magnitude, mel filterbank and log; exporting the model raises
"SymbolicValueError: STFT does not currently support complex types".

Source: https://github.com/NVIDIA-NeMo/Speech/issues/11684
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}, "seq_len": {0: "batch"}}
BLIND = "operators-10"


class FilterbankFeatures(nn.Module):
    def __init__(self, sample_rate=16000, n_window_size=320, n_window_stride=160, nfilt=64, preemph=0.97,
                 log_zero_guard_value=2**-24, mag_power=2.0):
        super().__init__()
        self.win_length = n_window_size
        self.hop_length = n_window_stride
        self.n_fft = 2 ** math.ceil(math.log2(self.win_length))
        self.register_buffer("window", torch.hann_window(self.win_length, periodic=False))
        # librosa.filters.mel(...) in NeMo; a fixed non-negative bank stands in for it here
        self.register_buffer("fb", torch.rand(nfilt, self.n_fft // 2 + 1).unsqueeze(0))
        self.preemph = preemph
        self.log_zero_guard_value = log_zero_guard_value
        self.mag_power = mag_power

    def stft(self, x):
        return torch.stft(
            x,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            center=True,
            window=self.window.to(dtype=torch.float, device=x.device),
            return_complex=True,
            pad_mode="constant",
        )

    def get_seq_len(self, seq_len):
        pad_amount = self.n_fft // 2 * 2
        seq_len = torch.floor_divide((seq_len + pad_amount - self.n_fft), self.hop_length)
        return seq_len.to(dtype=torch.long)

    def forward(self, x, seq_len):
        seq_len_time = seq_len
        seq_len = self.get_seq_len(seq_len)

        # do preemphasis
        timemask = torch.arange(x.shape[1], device=x.device).unsqueeze(0) < seq_len_time.unsqueeze(1)
        x = torch.cat((x[:, 0].unsqueeze(1), x[:, 1:] - self.preemph * x[:, :-1]), dim=1)
        x = x.masked_fill(~timemask, 0.0)

        x = self.stft(x)

        # torch stft returns complex tensor (of shape [B,N,T]); so convert to magnitude
        guard = 0
        x = torch.view_as_real(x)
        x = torch.sqrt(x.pow(2).sum(-1) + guard)
        if self.mag_power != 1.0:
            x = x.pow(self.mag_power)

        x = torch.matmul(self.fb.to(x.dtype), x)
        x = torch.log(x + self.log_zero_guard_value)
        return x, seq_len


def make_model():
    return FilterbankFeatures()


def example_inputs():
    return (torch.randn(2, 16000), torch.tensor([16000, 12000]))


def other_inputs():
    return [
        (torch.randn(3, 8000), torch.tensor([8000, 8000, 5000])),
        (torch.randn(1, 24000), torch.tensor([24000])),
    ]


def probe_inputs():
    return other_inputs()
