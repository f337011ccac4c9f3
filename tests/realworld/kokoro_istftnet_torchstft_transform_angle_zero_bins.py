"""Kokoro TTS iSTFTNet generator: the harmonic source signal goes through `TorchSTFT.transform`,
which runs `torch.stft(..., return_complex=True)` and returns `torch.abs(...)` and
`torch.angle(...)`; magnitude and phase are concatenated and fed to the noise convs. The report
(found while exporting Kokoro) says the ONNX lowering of atan2 -- which `torch.angle` decomposes to,
atan2(imag, real) -- disagrees with PyTorch when the input is zero (NaN for 0/0 where PyTorch gives
0), so silent stretches and zero-imaginary bins (DC/Nyquist) come back with a different phase.

Source: https://github.com/pytorch/pytorch/issues/162570
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"har_source": {0: "batch", 1: "samples"}}
BLIND = "operators-63"


class TorchSTFT(nn.Module):
    def __init__(self, filter_length=16, hop_length=4, win_length=16, window="hann"):
        super().__init__()
        self.filter_length = filter_length
        self.hop_length = hop_length
        self.win_length = win_length
        self.window = torch.hann_window(win_length)

    def transform(self, input_data):
        forward_transform = torch.stft(
            input_data,
            self.filter_length, self.hop_length, self.win_length, window=self.window.to(input_data.device),
            return_complex=True)
        return torch.abs(forward_transform), torch.angle(forward_transform)


class HarmonicBranch(nn.Module):
    def __init__(self, gen_istft_n_fft=16, gen_istft_hop_size=4, channels=8):
        super().__init__()
        self.stft = TorchSTFT(filter_length=gen_istft_n_fft, hop_length=gen_istft_hop_size,
                              win_length=gen_istft_n_fft)
        self.noise_conv = nn.Conv1d(gen_istft_n_fft + 2, channels, kernel_size=1)

    def forward(self, har_source):
        # har_source: [B, T, 1] from the SineGen source module
        har_source = har_source.transpose(1, 2).squeeze(1)
        har_spec, har_phase = self.stft.transform(har_source)
        har = torch.cat([har_spec, har_phase], dim=1)
        return self.noise_conv(har)


def make_model():
    return HarmonicBranch().eval()


def _source(b, t, silent_from):
    x = 0.1 * torch.sin(torch.linspace(0, 50, t)).repeat(b, 1) + 0.003 * torch.randn(b, t)
    x[:, silent_from:] = 0.0   # unvoiced / trailing silence
    return x.unsqueeze(-1)


def example_inputs():
    return (_source(2, 128, 96),)


def other_inputs():
    return [(_source(3, 160, 100),), (_source(1, 96, 40),)]


def probe_inputs():
    return other_inputs()
