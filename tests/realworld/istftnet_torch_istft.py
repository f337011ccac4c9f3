"""MB-iSTFT-VITS / iSTFTNet vocoder head: the generator predicts magnitude and phase and
`TorchSTFT.inverse` calls `torch.istft(magnitude * torch.exp(phase * 1j), ...)`; ONNX export fails
("RuntimeError: Unknown number type: complex", istft not supported).

Source: https://github.com/MasayaKawamura/MB-iSTFT-VITS/issues/8
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "operators-1"


class TorchSTFT(torch.nn.Module):
    def __init__(self, filter_length=16, hop_length=4, win_length=16, window='hann'):
        super().__init__()
        self.filter_length = filter_length
        self.hop_length = hop_length
        self.win_length = win_length
        # scipy.signal.get_window('hann', win_length, fftbins=True)
        self.window = torch.hann_window(win_length, periodic=True)

    def inverse(self, magnitude, phase):
        inverse_transform = torch.istft(
            magnitude * torch.exp(phase * 1j),
            self.filter_length, self.hop_length, self.win_length, window=self.window.to(magnitude.device))
        return inverse_transform.unsqueeze(-2)  # unsqueeze to stay consistent with conv_transpose1d implementation


class Generator(nn.Module):
    def __init__(self, in_channels=20, hidden=32, gen_istft_n_fft=16, gen_istft_hop_size=4):
        super().__init__()
        self.post_n_fft = gen_istft_n_fft
        self.conv_pre = nn.Conv1d(in_channels, hidden, 7, 1, padding=3)
        self.res = nn.Conv1d(hidden, hidden, 3, 1, padding=1)
        self.reflection_pad = nn.ReflectionPad1d((1, 0))
        self.conv_post = nn.Conv1d(hidden, self.post_n_fft + 2, 7, 1, padding=3)
        self.stft = TorchSTFT(filter_length=gen_istft_n_fft, hop_length=gen_istft_hop_size,
                              win_length=gen_istft_n_fft)

    def forward(self, x):
        x = self.conv_pre(x)
        x = x + self.res(torch.nn.functional.leaky_relu(x, 0.1))
        x = torch.nn.functional.leaky_relu(x)
        x = self.reflection_pad(x)
        x = self.conv_post(x)
        spec = torch.exp(x[:, :self.post_n_fft // 2 + 1, :])
        phase = math.pi * torch.sin(x[:, self.post_n_fft // 2 + 1:, :])
        y_g_hat = self.stft.inverse(spec, phase)
        return y_g_hat


def make_model():
    return Generator()


def example_inputs():
    return (torch.randn(2, 20, 12),)


def other_inputs():
    return [(torch.randn(3, 20, 19),), (torch.randn(1, 20, 7),)]


def probe_inputs():
    return other_inputs()
