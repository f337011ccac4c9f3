"""FastEnhancer's streaming STFT/iSTFT (`ONNXSTFT`, wav2wav speech-enhancement export): each call
takes one hop of audio plus an input cache, runs `torch.fft.rfft` + `torch.view_as_real`, applies the
model's mask, and the inverse turns the [n_fft//2+1, 2] spectrum back into a complex tensor with
`torch.view_as_complex` and runs `torch.fft.irfft` before windowed overlap-add with an output cache.
The author notes "ONNX doesn't support irFFT with an input of [n_fft//2+1, 2]" and replaced that
original irFFT code (kept in comments) with a pad + ifft + correction trick.

Source: https://github.com/aask1357/fastenhancer/blob/main/functional/audio_modules.py
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {}   # streaming: one hop (B=1) per call, caches carried by the caller
BLIND = "operators-63"


class ONNXSTFT(nn.Module):
    def __init__(self, n_fft=64, hop_size=32, win_type="hann"):
        super().__init__()
        self.n_fft = n_fft
        self.hop_size = hop_size
        self.cache_len = n_fft - hop_size
        window = getattr(torch, f"{win_type}_window")(n_fft)
        self.register_buffer("window", window, persistent=False)
        K = (n_fft + hop_size - 1) // hop_size
        L = hop_size * (2 * K - 1) + (n_fft - hop_size)
        win_sq = window.square().view(1, -1, 1).expand(1, -1, 2 * K - 1)
        win_sq_sum = F.fold(win_sq, output_size=(1, L), kernel_size=(1, n_fft),
                            stride=(1, hop_size), padding=(0, 0)).view(-1)
        win_sq_sum = win_sq_sum[(K - 1) * hop_size:(K - 1) * hop_size + n_fft]
        self.register_buffer("window_istft", window / win_sq_sum, persistent=False)

    def forward(self, x, cache):
        x = torch.cat([cache, x], dim=1)        # [B, n_fft]
        cache = x[:, -self.cache_len:]
        x = x * self.window
        x = torch.fft.rfft(x, dim=1)            # [1, n_fft//2+1] (complex)
        x = torch.view_as_real(x).unsqueeze(2)  # [1, n_fft//2+1, 1, 2] (real)
        return x, cache

    def inverse(self, x, cache):
        # Original irFFT code
        x = torch.view_as_complex(x.view(self.n_fft // 2 + 1, 2))
        x = torch.fft.irfft(x).view(1, self.n_fft)
        x = x * self.window_istft
        x[:, :cache.size(1)] += cache
        out = x[:, :-(self.n_fft - self.hop_size)]
        cache = x[:, -(self.n_fft - self.hop_size):]
        return out, cache


class StreamingEnhancer(nn.Module):
    def __init__(self, n_fft=64, hop_size=32):
        super().__init__()
        self.stft = ONNXSTFT(n_fft, hop_size)
        self.mask = nn.Conv2d(2, 2, 1)

    def forward(self, wav_in, cache_stft, cache_istft):
        spec_in, cache_stft = self.stft(wav_in, cache_stft)                  # [1, F, 1, 2]
        spec_out = self.mask(spec_in.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)  # [1, F, 1, 2]
        wav_out, cache_istft = self.stft.inverse(spec_out, cache_istft)
        return wav_out, cache_stft, cache_istft


def make_model():
    return StreamingEnhancer().eval()


def example_inputs():
    return (torch.randn(1, 32), torch.randn(1, 32), torch.randn(1, 32))


def other_inputs():
    return [(torch.randn(1, 32), torch.randn(1, 32), torch.randn(1, 32)),
            (torch.randn(1, 32), torch.zeros(1, 32), torch.zeros(1, 32))]


def probe_inputs():
    return other_inputs()
