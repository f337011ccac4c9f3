"""A VITS-style TTS acoustic model run in float16 samples its prior latent as
m_p + noise * exp(logs_p) * noise_scale with the noise drawn in the model's half dtype; the
report's fp16 TTS ONNX model fails to load in onnxruntime because RandomNormalLike has no
float16 kernel on the CPU provider (the maintainer: "The implementation in onnxruntime does not
support float16 ... but it does on CUDA").

Source: https://github.com/microsoft/onnxconverter-common/issues/287
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {1: "text_len"}}
BLIND = "operators-57"


class TextEncoder(nn.Module):
    def __init__(self, n_vocab=64, hidden=32, out_channels=16):
        super().__init__()
        self.emb = nn.Embedding(n_vocab, hidden)
        self.pre = nn.Conv1d(hidden, hidden, 3, padding=1)
        self.proj = nn.Conv1d(hidden, out_channels * 2, 1)
        self.out_channels = out_channels

    def forward(self, x):
        h = self.emb(x).transpose(1, 2)
        h = torch.relu(self.pre(h))
        stats = self.proj(h)
        m_p, logs_p = torch.split(stats, self.out_channels, dim=1)
        return m_p, logs_p


class FP16TTS(nn.Module):
    def __init__(self, noise_scale=0.667):
        super().__init__()
        self.enc_p = TextEncoder()
        self.dec = nn.Conv1d(16, 1, 7, padding=3)
        self.noise_scale = noise_scale

    def forward(self, x):
        m_p, logs_p = self.enc_p(x)
        z_p = m_p + torch.randn(m_p.size(), dtype=m_p.dtype) * torch.exp(logs_p) * self.noise_scale
        return torch.tanh(self.dec(z_p))


def make_model():
    return FP16TTS().half().eval()


def example_inputs():
    return (torch.randint(0, 64, (1, 23)),)


def other_inputs():
    return [(torch.randint(0, 64, (1, 41)),), (torch.randint(0, 64, (1, 9)),)]


def probe_inputs():
    return other_inputs()
