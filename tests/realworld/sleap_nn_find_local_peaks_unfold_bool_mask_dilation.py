"""sleap-nn bottom-up pose inference: `find_local_peaks_rough` does non-maximum suppression with
`morphological_dilation`, which pads the confidence maps, takes 3x3 neighbourhoods with
`padded.unfold(2, 3, 1).unfold(3, 3, 1)`, reshapes them with the unpacked `patches.shape`, and knocks the centre out
with a boolean-mask write `patches_masked[..., ~kernel_mask] = float("-inf")`; the PR ("ONNX-exportable rewrites",
closes #513) says the ONNX exporter rejected this `Tensor.unfold` formulation (its export smoke test was an
xfail) and rewrites it as a stack of eight shifted slices.

Source: https://github.com/talmolab/sleap-nn/commit/33b0c52ad7309de55701df25242680fc1e0d5d4a
"""
from typing import Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-63"


def morphological_dilation(image: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    padded = F.pad(image, (1, 1, 1, 1), mode="constant", value=float("-inf"))

    # Shape after the two unfolds: (B, 1, H, W, 3, 3)
    patches = padded.unfold(2, 3, 1).unfold(3, 3, 1)
    b, c, h, w, _, _ = patches.shape
    patches = patches.reshape(b, c, h, w, -1)

    kernel_flat = kernel.reshape(-1).to(patches.device)
    kernel_mask = kernel_flat > 0

    patches_masked = patches.clone()
    patches_masked[..., ~kernel_mask] = float("-inf")

    return patches_masked.max(dim=-1)[0]


def find_local_peaks_rough(
    cms: torch.Tensor, threshold: float = 0.2
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    kernel = torch.tensor([[1, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=torch.float32)

    height = cms.size(2)
    width = cms.size(3)
    channels = cms.size(1)
    flat_img = cms.reshape(-1, 1, height, width)

    max_img = morphological_dilation(flat_img, kernel.to(flat_img.device))
    max_img = max_img.reshape(-1, channels, height, width)

    argmax_and_thresh_img = (cms > max_img) & (cms > threshold)

    peak_subs = torch.stack(
        torch.where(argmax_and_thresh_img.permute(0, 2, 3, 1)), axis=-1
    )
    peak_vals = cms[peak_subs[:, 0], peak_subs[:, 3], peak_subs[:, 1], peak_subs[:, 2]]
    peak_points = peak_subs[:, [2, 1]].to(torch.float32)
    peak_sample_inds = peak_subs[:, 0].to(torch.int32)
    peak_channel_inds = peak_subs[:, 3].to(torch.int32)
    return peak_points, peak_vals, peak_sample_inds, peak_channel_inds


class BottomUpPeaks(nn.Module):
    """Tiny confmap backbone + head (output stride 2) followed by local-peak NMS."""

    def __init__(self, n_nodes=4, output_stride=2, peak_threshold=0.2):
        super().__init__()
        self.torch_model = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, n_nodes, 1),
        )
        self.output_stride = output_stride
        self.peak_threshold = peak_threshold

    def forward(self, x):
        cms = self.torch_model(x)
        peak_points, peak_vals, sample_inds, channel_inds = find_local_peaks_rough(
            cms, threshold=self.peak_threshold
        )
        return peak_points * self.output_stride, peak_vals, sample_inds, channel_inds


def make_model():
    return BottomUpPeaks().eval()


def example_inputs():
    return (torch.randn(2, 1, 48, 40),)


def other_inputs():
    return [(torch.randn(3, 1, 32, 56),), (torch.randn(1, 1, 64, 24),)]


def probe_inputs():
    return other_inputs()
