"""SEN2SRLite (ESA OpenSR Sentinel-2 x4 super-resolution): `srmodel` wraps the SPAN CNN with `HardConstraint`, which
upsamples the low-resolution bands with `F.interpolate(..., mode="bicubic", antialias=True)`, mixes the low
frequencies of that with the high frequencies of the SR output through `torch.fft.fftn` / `fftshift` / a stored
low-pass mask / `ifft2`, and returns the real part. The export script (torch 2.13) notes that "the SEN2SRLite
HardConstraint uses torch.fft and antialiased bicubic, both of which the ONNX exporter refuses" and rewrites both as
fixed convolutions before exporting with dynamo=False. The SPAN network is cut down to a conv + pixel-shuffle head;
the mask is a Butterworth low-pass built with sen2sr's own helper.

Source: https://github.com/seamusrobertmurphy/disturbance-checker/blob/8b826668336b22f307990c726c1f60cf3b8bdaaf/scripts/export-sen2sr-model.py
"""
from typing import Tuple

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-39"


def butterworth_filter(shape: Tuple[int, int], cutoff: int, order: int) -> torch.Tensor:
    rows, cols = shape
    crow, ccol = rows // 2, cols // 2
    filter = torch.zeros((rows, cols), dtype=torch.float32)
    for u in range(rows):
        for v in range(cols):
            distance = ((u - crow) ** 2 + (v - ccol) ** 2) ** 0.5
            filter[u, v] = 1 / (1 + (distance / cutoff) ** (2 * order))
    return filter


class HardConstraint(torch.nn.Module):
    def __init__(self, low_pass_mask: torch.Tensor, bands="all", device: str = "cpu"):
        super().__init__()
        self.low_pass_mask = low_pass_mask.to(device)
        self.bands = bands

    def forward(self, lr: torch.Tensor, sr: torch.Tensor) -> torch.Tensor:
        # Upsample the LR image to the HR size
        if self.bands == "all":
            lr_up = torch.nn.functional.interpolate(
                lr, size=sr.shape[-2:], mode="bicubic", antialias=True
            )
        else:
            lr_up = torch.nn.functional.interpolate(
                lr[:, self.bands], size=sr.shape[-2:], mode="bicubic", antialias=True
            )

        # Apply the low-pass filter to the HR image
        sr_fft = torch.fft.fftn(sr, dim=(-2, -1))
        lr_fft = torch.fft.fftn(lr_up, dim=(-2, -1))

        # Shift the zero-frequency component to the center
        sr_fft_shifted = torch.fft.fftshift(sr_fft)
        lr_fft_shifted = torch.fft.fftshift(lr_fft)

        # High-pass filter is the complement of the low-pass filter
        high_pass_mask = 1 - self.low_pass_mask

        f1_low = lr_fft_shifted * self.low_pass_mask
        f1_high = sr_fft_shifted * high_pass_mask
        sr_fft_filtered = f1_low + f1_high

        # Inverse FFT to get the filtered SR image
        combined_ishift = torch.fft.ifftshift(sr_fft_filtered)
        hybrid_image = torch.real(torch.fft.ifft2(combined_ishift))
        return hybrid_image


class TinySPAN(nn.Module):
    """Stand-in for the SPAN body: conv stem, two convs, pixel-shuffle x4 head."""

    def __init__(self, num_in_ch=4, num_out_ch=4, feature_channels=16, upscale=4):
        super().__init__()
        self.conv_1 = nn.Conv2d(num_in_ch, feature_channels, 3, padding=1)
        self.block = nn.Sequential(
            nn.Conv2d(feature_channels, feature_channels, 3, padding=1), nn.SiLU(),
            nn.Conv2d(feature_channels, feature_channels, 3, padding=1),
        )
        self.upsampler = nn.Sequential(
            nn.Conv2d(feature_channels, num_out_ch * upscale**2, 3, padding=1), nn.PixelShuffle(upscale)
        )

    def forward(self, x):
        out_feature = self.conv_1(x)
        return self.upsampler(out_feature + self.block(out_feature))


class SRModelWithConstraint(nn.Module):
    def __init__(self, sr_model: nn.Module, hard_constraint: nn.Module):
        super().__init__()
        self.sr_model = sr_model
        self.hard_constraint = hard_constraint

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Apply SR model
        sr = self.sr_model(x)
        # Results must be always positive
        sr = torch.clamp(sr, min=0.0)
        return self.hard_constraint(x, sr)


def make_model():
    mask = butterworth_filter((64, 64), cutoff=8, order=6)
    return SRModelWithConstraint(TinySPAN(), HardConstraint(mask).eval()).eval()


def example_inputs():
    return (torch.rand(2, 4, 16, 16),)


def other_inputs():
    return [(torch.rand(3, 4, 16, 16),), (torch.rand(1, 4, 16, 16),)]


def probe_inputs():
    return other_inputs()
