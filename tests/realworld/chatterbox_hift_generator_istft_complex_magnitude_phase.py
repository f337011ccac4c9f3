"""Tail of Chatterbox's S3Gen vocoder (CosyVoice HiFTGenerator): `conv_post` predicts
log-magnitude and phase, and `_istft` resynthesises audio with
`torch.istft(torch.complex(real, img), n_fft, hop_len, n_fft, window=self.stft_window)` before the
audio clamp. The public Chatterbox ONNX conversion script stops the `hift_generator.onnx` graph at
`(magnitude, phase)` and exports the source `torch.stft` separately with `return_complex=False`,
leaving the complex `torch.istft` outside ONNX.

Source: https://github.com/VladOS95-cyber/onnx_conversion_scripts/tree/main/chatterbox
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch_size", 2: "sequence_length"}}
BLIND = "operators-28"


class HiFTGeneratorTail(nn.Module):
    def __init__(self, channels=64, istft_params={"n_fft": 16, "hop_len": 4}, audio_limit=0.99):
        super().__init__()
        self.istft_params = istft_params
        self.audio_limit = audio_limit
        self.conv_post = nn.Conv1d(channels, istft_params["n_fft"] + 2, 7, 1, padding=3)
        self.register_buffer("stft_window", torch.hann_window(istft_params["n_fft"], periodic=True))

    def _istft(self, magnitude, phase):
        magnitude = torch.clip(magnitude, max=1e2)
        real = magnitude * torch.cos(phase)
        img = magnitude * torch.sin(phase)
        inverse_transform = torch.istft(torch.complex(real, img), self.istft_params["n_fft"],
                                        self.istft_params["hop_len"], self.istft_params["n_fft"],
                                        window=self.stft_window.to(magnitude.device))
        return inverse_transform

    def forward(self, x):
        x = F.leaky_relu(x)
        x = self.conv_post(x)
        magnitude = torch.exp(x[:, :self.istft_params["n_fft"] // 2 + 1, :])
        phase = torch.sin(x[:, self.istft_params["n_fft"] // 2 + 1:, :])  # actually, sin is redundancy

        x = self._istft(magnitude, phase)
        x = torch.clamp(x, -self.audio_limit, self.audio_limit)
        return x


def make_model():
    return HiFTGeneratorTail().eval()


def example_inputs():
    return (torch.randn(1, 64, 120) * 0.1,)


def other_inputs():
    return [(torch.randn(2, 64, 200) * 0.1,), (torch.randn(1, 64, 57) * 0.1,)]


def probe_inputs():
    return other_inputs()
