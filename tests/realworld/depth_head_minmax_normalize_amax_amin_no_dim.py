"""Relative-depth head that min-max normalizes its prediction with `depth.amin()` / `depth.amax()`
called without `dim` (reduce over every element). The report: the dynamo converter only handled
`aten.amax` / `aten.amin` when a `dim` argument was present (a validator rejected the no-dim call),
so the all-elements form did not convert.

Source: https://github.com/pytorch/TensorRT/pull/2504
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "operators-32"


class TinyDepth(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Conv2d(16, 1, 1)

    def forward(self, image):
        feat = self.enc(image)
        depth = F.softplus(self.head(feat))
        depth = F.interpolate(depth, size=image.shape[-2:], mode="bilinear", align_corners=False)
        d_min = depth.amin()
        d_max = depth.amax()
        return (depth - d_min) / (d_max - d_min + 1e-6)


def make_model():
    return TinyDepth().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(1, 3, 40, 24),), (torch.randn(1, 3, 18, 30),)]


def probe_inputs():
    return other_inputs()
