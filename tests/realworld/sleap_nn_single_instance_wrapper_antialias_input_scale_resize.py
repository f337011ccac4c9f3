"""SLEAP-NN single-instance ONNX export wrapper: uint8 frames are normalized, downscaled by `input_scale` with
`F.interpolate(image, size=(int(H * input_scale), int(W * input_scale)), mode="bilinear", align_corners=False,
antialias=True)` (to match the antialiased torchvision resize of the PyTorch path), run through the backbone, and
the per-node global confidence-map peaks are scaled back by `output_stride / input_scale`. The PR says the
antialiased resize `aten::_upsample_bilinear2d_aa` has no symbolic in the legacy TorchScript exporter
(UnsupportedOperatorError), so its exporter falls back to dynamo=True for such models; the export uses dynamic
batch/height/width. Backbone reduced to a small stride-4 conv stack; the dict output is returned as a tuple.

Source: https://github.com/talmolab/sleap-nn/pull/672
"""
from typing import Tuple

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-46"


class BaseExportWrapper(nn.Module):
    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    @staticmethod
    def _normalize_uint8(image: torch.Tensor) -> torch.Tensor:
        """Normalize unnormalized uint8 (or [0, 255] float) images to [0, 1]."""
        if image.dtype != torch.float32:
            image = image.float()
        return image / 255.0

    @staticmethod
    def _find_global_peaks(
        confmaps: torch.Tensor, peak_threshold: float = 0.2
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        batch_size, channels, height, width = confmaps.shape
        flat = confmaps.reshape(batch_size, channels, height * width)
        values, indices = flat.max(dim=-1)
        y = indices // width
        x = indices % width
        peaks = torch.stack([x.float(), y.float()], dim=-1)

        below = values < peak_threshold
        peaks = peaks.masked_fill(below.unsqueeze(-1), float("nan"))
        values = values.masked_fill(below, 0.0)

        return peaks, values


class SingleInstanceONNXWrapper(BaseExportWrapper):
    def __init__(
        self,
        model: nn.Module,
        output_stride: int = 4,
        input_scale: float = 1.0,
        peak_threshold: float = 0.2,
    ):
        super().__init__(model)
        self.output_stride = output_stride
        self.input_scale = input_scale
        self.peak_threshold = peak_threshold

    def forward(self, image: torch.Tensor):
        # Normalize uint8 [0, 255] to float32 [0, 1]
        image = self._normalize_uint8(image)

        # Apply input scaling if needed. ``antialias=True`` matches the PyTorch inference
        # path, which resizes via ``torchvision.transforms.functional.resize``
        # (antialiased by default).
        if self.input_scale != 1.0:
            height = int(image.shape[-2] * self.input_scale)
            width = int(image.shape[-1] * self.input_scale)
            image = F.interpolate(
                image,
                size=(height, width),
                mode="bilinear",
                align_corners=False,
                antialias=True,
            )

        # Run model to get confidence maps: (batch, n_nodes, height, width)
        confmaps = self.model(image)

        # Find global peak for each channel: (batch, n_nodes, 2), (batch, n_nodes)
        peaks, values = self._find_global_peaks(confmaps, self.peak_threshold)

        # Scale peaks from confmap coordinates to image coordinates
        peaks = peaks * (self.output_stride / self.input_scale)

        return peaks, values


def make_model():
    backbone = nn.Sequential(
        nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 3, 1), nn.Sigmoid(),
    )
    return SingleInstanceONNXWrapper(backbone, output_stride=4, input_scale=0.5, peak_threshold=0.2).eval()


def _frames(b, h, w):
    return torch.randint(0, 256, (b, 1, h, w), dtype=torch.uint8)


def example_inputs():
    return (_frames(2, 64, 48),)


def other_inputs():
    return [(_frames(3, 96, 80),), (_frames(1, 56, 72),)]


def probe_inputs():
    return other_inputs()
