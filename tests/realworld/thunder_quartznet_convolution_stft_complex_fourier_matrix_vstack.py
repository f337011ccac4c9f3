"""thunder-speech QuartzNet front end: for ONNX export `PowerSpectrum.stft_func` is swapped from
`torch.stft` to the "Conv1d based stft, to be used with onnx" patch, whose `convolution_stft` builds the
DFT basis in forward with `torch.exp(torch.complex(real, imaginary))`, `torch.real`/`torch.imag` and
`torch.vstack`; the follow-up commit "change operation in stft patch because of onnx" had to rewrite it.

Source: https://github.com/scart97/thunder-speech/commit/7456c3ece7556b06e9d7e2b640629b34eeb8b1f4
"""
import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "operators-23"


def _fourier_matrix(n_fft: int, device: torch.device) -> torch.Tensor:
    # https://mathworld.wolfram.com/FourierMatrix.html
    idx = torch.arange(0, n_fft, device=device, dtype=torch.float).unsqueeze(1)
    z = idx @ idx.T
    imaginary = -2 * math.pi * z / n_fft
    real = torch.zeros_like(imaginary)
    return torch.exp(torch.complex(real, imaginary))


def convolution_stft(
    input_data: torch.Tensor,
    n_fft: int = 1024,
    hop_length: int = 512,
    win_length: int = 1024,
    window: torch.Tensor = torch.hann_window(1024, periodic=False),
    center: bool = True,
    return_complex: bool = False,
) -> torch.Tensor:
    """Implements the stft operation using the convolution method, to export to onnx."""
    assert n_fft >= win_length
    pad_amount = int(n_fft / 2)
    window = window.to(input_data.device)

    fourier_basis = _fourier_matrix(n_fft, device=input_data.device)

    cutoff = int((n_fft / 2 + 1))
    fourier_basis = torch.vstack(
        [torch.real(fourier_basis[:cutoff, :]), torch.imag(fourier_basis[:cutoff, :])]
    )
    forward_basis = fourier_basis[:, None, :].float()

    window_pad = (n_fft - win_length) // 2
    window_pad2 = n_fft - (window_pad + win_length)
    fft_window = torch.nn.functional.pad(window, [window_pad, window_pad2])
    # window the bases
    forward_basis *= fft_window
    forward_basis = forward_basis.float()

    num_batches = input_data.shape[0]
    num_samples = input_data.shape[-1]

    # similar to librosa, reflect-pad the input
    input_data = input_data.view(num_batches, 1, num_samples)

    input_data = F.pad(
        input_data.unsqueeze(1),
        (pad_amount, pad_amount, 0, 0),
        mode="reflect",
    )
    input_data = input_data.squeeze(1)

    forward_transform = F.conv1d(
        input_data, forward_basis, stride=hop_length, padding=0
    )

    cutoff = int((n_fft / 2) + 1)
    real_part = forward_transform[:, :cutoff, :]
    imag_part = forward_transform[:, cutoff:, :]
    return torch.stack((real_part, imag_part), dim=-1)


class PowerSpectrum(nn.Module):
    def __init__(
        self,
        n_window_size: int = 320,
        n_window_stride: int = 160,
        n_fft: Optional[int] = None,
    ):
        super().__init__()
        self.win_length = n_window_size
        self.hop_length = n_window_stride
        self.n_fft = n_fft or 2 ** math.ceil(math.log2(self.win_length))

        window_tensor = torch.hann_window(self.win_length, periodic=False)
        self.register_buffer("window", window_tensor)
        # This way so that the torch.stft can be changed to the patched version
        # before scripting. That way it works correctly when the export option
        # doesnt support fft, like mobile or onnx.
        self.stft_func = torch.stft

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stft_func(
            x,
            n_fft=self.n_fft,
            hop_length=self.hop_length,
            win_length=self.win_length,
            center=True,
            window=self.window.to(dtype=torch.float),
            return_complex=False,
        )

        # torch returns real, imag; so convert to magnitude
        x = torch.sqrt(x.pow(2).sum(-1))
        # get power spectrum
        x = x.pow(2.0)
        return x


def make_model():
    spec = PowerSpectrum(n_window_size=64, n_window_stride=32)
    spec.stft_func = convolution_stft  # the ONNX/mobile patch
    return spec.eval()


def example_inputs():
    return (torch.randn(2, 1337),)


def other_inputs():
    return [(torch.randn(3, 1600),), (torch.randn(1, 999),)]


def probe_inputs():
    return other_inputs()
