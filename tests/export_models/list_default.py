"""Practical-RIFE's IFNet: `forward(self, x, timestep=0.5, scale_list=[8, 4, 2, 1])`, called with x
alone. The legacy exporter appends forward's defaults to the arguments as traced inputs, so each
`scale_list[i]` reaches `F.interpolate(scale_factor=1. / scale)` as a tensor and the export fails
("upsample_bilinear2d() received an invalid combination of arguments"). Exported through
`forward(*args)`, the defaults stay the Python values the call uses."""
import torch
import torch.nn.functional as F
from torch import nn


class Pyramid(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x, timestep=0.5, scale_list=[4, 2, 1]):
        out = x * timestep
        for scale in scale_list:
            small = F.interpolate(x, scale_factor=1. / scale, mode="bilinear", align_corners=False)
            out = out + F.interpolate(self.conv(small), size=x.shape[2:], mode="bilinear", align_corners=False)
        return out


def make_model():
    torch.manual_seed(0)
    return Pyramid()


def example_inputs():
    return (torch.randn(1, 3, 16, 16),)


def probe_inputs():
    return [(torch.randn(2, 3, 24, 32),)]
