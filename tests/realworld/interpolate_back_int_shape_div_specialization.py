"""Resize-back step of a dense-prediction model: `ori_size = (int(x.shape[-2] / 1), int(x.shape[-1] / 1))` then
`F.interpolate(x, size=ori_size, mode="bilinear")`; torch.export with Dim.DYNAMIC height/width silently specializes
the sizes through `int(...)` of the float division, so the exported/compiled model returns the export-time size
(28x28) for a 56x56 input ("The values for attribute 'shape' do not match").

Source: https://github.com/pytorch/pytorch/issues/138853
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-11"


class M(torch.nn.Module):
    def forward(self, x):
        ori_size = (
            int(x.shape[-2] / 1),
            int(x.shape[-1] / 1),
        )
        x = F.interpolate(x, size=ori_size, mode="bilinear")
        return x


class SegHead(nn.Module):
    """Small conv head in front of the report's module (a dense-prediction output resized back)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.m = M()

    def forward(self, x):
        return self.m(self.conv(x))


def make_model():
    return SegHead().eval()


def example_inputs():
    return (torch.rand(1, 3, 28, 28),)


def other_inputs():
    return [(torch.rand(1, 3, 56, 56),), (torch.rand(1, 3, 40, 33),)]


def probe_inputs():
    return other_inputs()
