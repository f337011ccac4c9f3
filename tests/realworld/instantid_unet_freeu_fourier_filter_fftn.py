"""InstantID (SDXL UNet + ControlNet) ported to ONNX in ailia-models: with FreeU enabled, the UNet up
blocks run diffusers' `fourier_filter` (`torch.fft.fftn` / `fftshift` / mask / `ifftshift` /
`ifftn(...).real`) on the skip features, and exporting the UNet fails with "Exporting the operator
'aten::fft_fftn' to ONNX opset version 17 is not supported".

Source: https://github.com/ailia-ai/ailia-models/issues/1377
"""
import torch
from torch import nn
import torch.nn.functional as F
from torch.fft import fftn, fftshift, ifftn, ifftshift

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 2: "height", 3: "width"},
           "res_hidden_states": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


def fourier_filter(x_in: "torch.Tensor", threshold: int, scale: int) -> "torch.Tensor":
    """Fourier filter as introduced in FreeU (https://arxiv.org/abs/2309.11497)."""
    x = x_in
    B, C, H, W = x.shape

    # Non-power of 2 images must be float32
    if (W & (W - 1)) != 0 or (H & (H - 1)) != 0:
        x = x.to(dtype=torch.float32)
    # fftn does not support bfloat16
    elif x.dtype == torch.bfloat16:
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


def apply_freeu(resolution_idx, hidden_states, res_hidden_states, **freeu_kwargs):
    if resolution_idx == 0:
        num_half_channels = hidden_states.shape[1] // 2
        hidden_states[:, :num_half_channels] = hidden_states[:, :num_half_channels] * freeu_kwargs["b1"]
        res_hidden_states = fourier_filter(res_hidden_states, threshold=1, scale=freeu_kwargs["s1"])
    if resolution_idx == 1:
        num_half_channels = hidden_states.shape[1] // 2
        hidden_states[:, :num_half_channels] = hidden_states[:, :num_half_channels] * freeu_kwargs["b2"]
        res_hidden_states = fourier_filter(res_hidden_states, threshold=1, scale=freeu_kwargs["s2"])
    return hidden_states, res_hidden_states


class UpBlockFreeU(nn.Module):
    """Trimmed UpBlock2D: FreeU on the skip connection, concat, conv 'resnet', upsample."""

    def __init__(self, channels=32, skip_channels=32, resolution_idx=0):
        super().__init__()
        self.resolution_idx = resolution_idx
        self.s1, self.s2, self.b1, self.b2 = 0.9, 0.2, 1.2, 1.4  # enable_freeu(...)
        self.norm = nn.GroupNorm(8, channels + skip_channels)
        self.conv = nn.Conv2d(channels + skip_channels, channels, 3, padding=1)
        self.upsample = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, hidden_states, res_hidden_states):
        hidden_states, res_hidden_states = apply_freeu(
            self.resolution_idx, hidden_states, res_hidden_states,
            s1=self.s1, s2=self.s2, b1=self.b1, b2=self.b2,
        )
        hidden_states = torch.cat([hidden_states, res_hidden_states], dim=1)
        hidden_states = self.conv(F.silu(self.norm(hidden_states)))
        hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        return self.upsample(hidden_states)


def make_model():
    return UpBlockFreeU().eval()


def example_inputs():
    return (torch.randn(2, 32, 16, 16), torch.randn(2, 32, 16, 16))


def other_inputs():
    return [(torch.randn(1, 32, 24, 20), torch.randn(1, 32, 24, 20)),
            (torch.randn(3, 32, 32, 32), torch.randn(3, 32, 32, 32))]


def probe_inputs():
    return other_inputs()
