"""A PoCoNet-like speech-enhancement model applies a complex ratio mask in the STFT domain,
y = ISTFT(N(STFT(x)) * STFT(x)), with torch.stft/torch.istft inside forward; OpenVINO conversion fails
("No conversion rule found for operations: aten::istft, aten::stft"), and the maintainers point to exporting
through torch.onnx.export instead.

Source: https://github.com/openvinotoolkit/openvino/issues/26116
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-20"


class MaskNet(nn.Module):
    def __init__(self, n_freq):
        super().__init__()
        self.conv1 = nn.Conv1d(2 * n_freq, 256, 1)
        self.conv2 = nn.Conv1d(256, 2 * n_freq, 1)

    def forward(self, spec):
        feats = torch.cat([spec.real, spec.imag], dim=1)
        m = self.conv2(torch.relu(self.conv1(feats)))
        m_real, m_imag = torch.chunk(torch.tanh(m), 2, dim=1)
        return torch.complex(m_real, m_imag)


class SpeechEnhancer(nn.Module):
    def __init__(self, n_fft=512, hop_length=128):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.register_buffer("window", torch.hann_window(n_fft))
        self.net = MaskNet(n_fft // 2 + 1)

    def forward(self, x):
        spec = torch.stft(x, n_fft=self.n_fft, hop_length=self.hop_length, window=self.window,
                          return_complex=True)
        mask = self.net(spec)
        out = torch.istft(mask * spec, n_fft=self.n_fft, hop_length=self.hop_length, window=self.window,
                          length=x.shape[-1])
        return out


def make_model():
    return SpeechEnhancer().eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 8000),), (torch.randn(1, 12000),)]


def probe_inputs():
    return other_inputs()
