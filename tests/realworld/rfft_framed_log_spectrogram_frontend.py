"""Speech front end that cuts the waveform into frames and calls `torch.fft.rfft` on windowed frames (the
torchaudio-style log power spectrogram), instead of building a DFT basis by hand. The report asks
for native export of torch.fft.rfft and friends via ONNX DFT-17: torch.onnx.export fails with
`Exporting the operator 'aten::fft_rfft' to ONNX opset version 17 is not supported`.

Source: https://github.com/pytorch/pytorch/issues/107588
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"signal": {0: "batch", 1: "samples"}}
BLIND = "operators-15"


class LogFilterBankFrontend(nn.Module):
    def __init__(self, n_fft=256, hop_length=200, win_length=200, num_mel_bins=40, eps=1e-9):
        super().__init__()
        self.n_fft, self.hop_length, self.win_length, self.eps = n_fft, hop_length, win_length, eps
        self.register_buffer("window", torch.hann_window(win_length))
        self.register_buffer("mel_basis", torch.rand(num_mel_bins, n_fft // 2 + 1))
        self.encoder = nn.Conv1d(num_mel_bins, 64, kernel_size=3, padding=1)

    def forward(self, signal):
        frames = signal.reshape(signal.shape[0], -1, self.win_length)
        frames = F.pad(frames * self.window, (0, self.n_fft - self.win_length))
        spec = torch.fft.rfft(frames, n=self.n_fft, dim=-1)
        power = spec.real ** 2 + spec.imag ** 2
        features = torch.matmul(self.mel_basis, power.transpose(-1, -2))
        features = (features + self.eps).log()
        return self.encoder(features)


def make_model():
    return LogFilterBankFrontend()


def example_inputs():
    return (torch.randn(2, 1600),)


def other_inputs():
    return [(torch.randn(3, 2400),), (torch.randn(1, 1000),)]


def probe_inputs():
    return other_inputs()
