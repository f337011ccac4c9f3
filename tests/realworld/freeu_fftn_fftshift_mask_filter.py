"""FreeU-style Fourier filter: `fftn` over H, W, `fftshift`, scale a centre window of the spectrum
with a mask built from the spectrum's shape, `ifftshift`, `ifftn(...).real`. The report: torch.fft
fftn / ifftn are not supported in ONNX opset 17 (torch.onnx.export fails).

Source: https://github.com/onnx/onnx/issues/4845
"""
import torch
from torch.fft import fftn, fftshift, ifftn, ifftshift

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x_in": {0: "B"}}
BLIND = "operators-7"


class FFTONNXModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x_in: torch.Tensor) -> torch.Tensor:
        x = x_in
        B, C, H, W = x.shape
        threshold = 10
        scale = 10
        # Non-power of 2 images must be float32
        if (W & (W - 1)) != 0 or (H & (H - 1)) != 0:
            x = x.to(dtype=torch.float32)

        # FFT
        x_freq = fftn(x, dim=(-2, -1))
        x_freq = fftshift(x_freq, dim=(-2, -1))

        B, C, H, W = x_freq.shape
        mask = torch.ones((B, C, H, W), device=x.device)

        crow, ccol = H // 2, W // 2
        mask[..., crow - threshold : crow + threshold, ccol - threshold : ccol + threshold] = scale
        x_freq = x_freq * mask

        # IFFT
        x_freq = ifftshift(x_freq, dim=(-2, -1))
        x_filtered = ifftn(x_freq, dim=(-2, -1)).real

        return x_filtered.to(dtype=x_in.dtype)


def make_model():
    return FFTONNXModel().eval()


def example_inputs():
    return (torch.randn(2, 8, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 8, 32, 32),), (torch.randn(1, 8, 32, 32),)]


def probe_inputs():
    return other_inputs()
