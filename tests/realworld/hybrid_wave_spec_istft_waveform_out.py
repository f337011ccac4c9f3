"""Hybrid audio network that processes the waveform and its spectrogram at the same time: the
spectral branch does `torch.stft` -> complex mask -> `torch.istft` and is summed with a waveform
conv branch, so waveform in, waveform out. The report: STFT exports (opset 17) but the inverse
operation ISTFT has no ONNX operator, so such models cannot go back to the waveform domain.

Source: https://github.com/onnx/onnx/issues/4777
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"wav": {0: "batch", 2: "samples"}}
BLIND = "operators-13"


class HybridDenoiser(nn.Module):
    def __init__(self, n_fft=1024, hop=256, channels=32):
        super().__init__()
        self.n_fft = n_fft
        self.hop = hop
        self.register_buffer("window", torch.hann_window(n_fft))
        bins = n_fft // 2 + 1
        self.spec_net = nn.Sequential(
            nn.Conv1d(2 * bins, channels, 1), nn.ReLU(), nn.Conv1d(channels, 2 * bins, 1))
        self.wave_net = nn.Sequential(
            nn.Conv1d(1, channels, 15, padding=7), nn.ReLU(), nn.Conv1d(channels, 1, 15, padding=7))

    def forward(self, wav):
        # wav: (B, 1, T)
        length = wav.shape[-1]
        x = wav.squeeze(1)
        spec = torch.stft(x, self.n_fft, hop_length=self.hop, window=self.window,
                          return_complex=True)                       # (B, F, frames)
        feats = torch.cat([spec.real, spec.imag], dim=1)
        m = self.spec_net(feats)
        mr, mi = m.chunk(2, dim=1)
        spec_out = spec * torch.complex(mr, mi)
        wav_spec = torch.istft(spec_out, self.n_fft, hop_length=self.hop, window=self.window,
                               length=length)
        wav_time = self.wave_net(wav)
        return wav_time + wav_spec.unsqueeze(1)


def make_model():
    return HybridDenoiser().eval()


def example_inputs():
    return (torch.randn(2, 1, 16000),)


def other_inputs():
    return [(torch.randn(3, 1, 22050),), (torch.randn(1, 1, 9000),)]


def probe_inputs():
    return other_inputs()
