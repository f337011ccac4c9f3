"""A BiSeNet-style head: `int()` of the input's sizes feeds `F.interpolate`. torch.export's
non-strict capture specializes the sizes and fails; the strict one (which torch.onnx tries next)
keeps them symbolic, and the export is right for every size: no guard finding."""

import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, w = int(x.size(2)), int(x.size(3))
        y = self.conv(x)
        return F.interpolate(y, size=(h, w), mode="bilinear")


def example_inputs():
    return (torch.randn(1, 3, 16, 16),)


DYNAMIC = {"x": [2, 3]}
