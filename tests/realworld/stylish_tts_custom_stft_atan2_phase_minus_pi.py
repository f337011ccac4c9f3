"""Stylish-TTS (StyleTTS2/Kokoro-style iSTFTNet vocoder): the harmonic source goes through a conv1d STFT
(`CustomSTFT.transform`) whose phase is `torch.atan2(imag_out, real_out)`, and magnitude+phase are fed to the
generator convs. The commit adding the project's ONNX export script had to patch this: "Handle the case where
imag_out is 0 and real_out is negative to correct ONNX atan2 to match PyTorch. In this case, PyTorch returns pi,
ONNX returns -pi" (the DC bin's imaginary part is exactly 0), so the exported phase differs from eager.

Source: https://github.com/Stylish-TTS/stylish-tts/commit/2562561ab51fe0494f854744f0525ad9ef04421f
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"har_source": {0: "batch", 1: "samples"}}
BLIND = "operators-48"


class CustomSTFT(nn.Module):
    """STFT without unfold/complex ops, using conv1d (forward part only)."""

    def __init__(self, filter_length=20, hop_length=5, win_length=20, window="hann", center=True,
                 pad_mode="replicate"):
        super().__init__()
        self.filter_length = filter_length
        self.hop_length = hop_length
        self.win_length = win_length
        self.n_fft = filter_length
        self.center = center
        self.pad_mode = pad_mode
        self.freq_bins = self.n_fft // 2 + 1

        assert window == 'hann', window
        window_tensor = torch.hann_window(win_length, periodic=True, dtype=torch.float32)
        self.register_buffer("window", window_tensor)

        # PyTorch stft uses e^{-j 2 pi k n / N} => real=cos(...), imag=-sin(...)
        n = np.arange(self.n_fft)
        k = np.arange(self.freq_bins)
        angle = 2 * np.pi * np.outer(k, n) / self.n_fft
        dft_real = np.cos(angle)
        dft_imag = -np.sin(angle)  # note negative sign
        forward_window = window_tensor.numpy()
        forward_real = dft_real * forward_window
        forward_imag = dft_imag * forward_window
        self.register_buffer("weight_forward_real", torch.from_numpy(forward_real).float().unsqueeze(1))
        self.register_buffer("weight_forward_imag", torch.from_numpy(forward_imag).float().unsqueeze(1))

    def transform(self, waveform: torch.Tensor):
        if self.center:
            pad_len = self.n_fft // 2
            waveform = F.pad(waveform, (pad_len, pad_len), mode=self.pad_mode)

        x = waveform.unsqueeze(1)  # => (B, 1, T)
        real_out = F.conv1d(x, self.weight_forward_real, bias=None, stride=self.hop_length, padding=0)
        imag_out = F.conv1d(x, self.weight_forward_imag, bias=None, stride=self.hop_length, padding=0)

        # magnitude, phase
        magnitude = torch.sqrt(real_out**2 + imag_out**2 + 1e-14)
        phase = torch.atan2(imag_out, real_out)
        return magnitude, phase


class GeneratorSourceBranch(nn.Module):
    """Trimmed iSTFTNet generator: STFT of the harmonic source -> noise conv (as in the decoder)."""

    def __init__(self, gen_istft_n_fft=20, gen_istft_hop_size=5, channels=16):
        super().__init__()
        self.stft = CustomSTFT(filter_length=gen_istft_n_fft, hop_length=gen_istft_hop_size,
                               win_length=gen_istft_n_fft)
        self.noise_conv = nn.Conv1d(gen_istft_n_fft + 2, channels, kernel_size=1)

    def forward(self, har_source):
        har_spec, har_phase = self.stft.transform(har_source)
        har = torch.cat([har_spec, har_phase], dim=1)
        return self.noise_conv(har)


def make_model():
    return GeneratorSourceBranch().eval()


def example_inputs():
    return (torch.randn(2, 400) - 0.5,)


def other_inputs():
    return [(torch.randn(3, 555) - 0.5,), (torch.randn(1, 240) - 0.5,)]


def probe_inputs():
    return other_inputs()
