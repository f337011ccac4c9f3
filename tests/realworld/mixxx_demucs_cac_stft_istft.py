"""Mixxx's Demucs ONNX port: the spectral branch takes `torch.stft(..., return_complex=True)`
(`return_complex=False`, the form the ONNX STFT op matches, is being deprecated), turns the complex
spectrum into channels with `view_as_real` (CaC), and goes back with `view_as_complex` +
`torch.istft`, which has no ONNX operator; the report asks how these STFT/ISTFT ops were handled
because the automatic export does not follow them. (Encoder/decoder trimmed to one conv pair.)

Source: https://github.com/mixxxdj/demucs/issues/10
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mix": {0: "batch"}}
BLIND = "operators-13"


class DemucsSpecBranch(nn.Module):
    def __init__(self, sources=4, audio_channels=2, nfft=512, channels=32):
        super().__init__()
        self.sources = sources
        self.audio_channels = audio_channels
        self.nfft = nfft
        self.hop_length = nfft // 4
        self.enc = nn.Conv2d(audio_channels * 2, channels, 1)
        self.dec = nn.Conv2d(channels, sources * audio_channels * 2, 1)

    def _spec(self, x):
        *other, length = x.shape
        x = x.reshape(-1, length)
        z = torch.stft(x, self.nfft, self.hop_length, window=torch.hann_window(self.nfft).to(x),
                       win_length=self.nfft, normalized=True, center=True, return_complex=True,
                       pad_mode="reflect")
        _, freqs, frame = z.shape
        return z.view(*other, freqs, frame)

    def _ispec(self, z, length):
        *other, freqs, frames = z.shape
        n_fft = 2 * freqs - 2
        z = z.view(-1, freqs, frames)
        x = torch.istft(z, n_fft, self.hop_length, window=torch.hann_window(n_fft).to(z.real),
                        win_length=n_fft, normalized=True, length=length, center=True)
        return x.view(*other, length)

    def forward(self, mix):
        length = mix.shape[-1]
        z = self._spec(mix)                                  # (B, C, F, T) complex
        B, C, Fr, T = z.shape
        m = torch.view_as_real(z).permute(0, 1, 4, 2, 3)     # complex as channels
        m = m.reshape(B, C * 2, Fr, T)
        x = self.dec(torch.relu(self.enc(m)))
        x = x.view(B, self.sources, -1, 2, Fr, T).permute(0, 1, 2, 4, 5, 3)
        zout = torch.view_as_complex(x.contiguous())
        return self._ispec(zout, length)                     # (B, S, C, length)


def make_model():
    return DemucsSpecBranch().eval()


def example_inputs():
    return (torch.randn(2, 2, 8000),)


def other_inputs():
    return [(torch.randn(1, 2, 8000),), (torch.randn(3, 2, 8000),)]


def probe_inputs():
    return other_inputs()
