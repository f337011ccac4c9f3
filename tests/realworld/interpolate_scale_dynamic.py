"""Upsampling block exported with dynamic sizes: `F.interpolate(x, scale_factor=2, mode="nearest")` between
convolutions; the dynamo export failed at the interpolate step.

Source: https://github.com/pytorch/pytorch/issues/124884
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "h", 3: "w"}}


class DummyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_down1 = nn.Conv2d(1, 4, 3, 1, 0)
        self.activation = nn.LeakyReLU(negative_slope=0.2)
        self.conv_up1 = nn.Conv2d(4, 1, 3, 1, 1)

    def forward(self, x):
        x = self.activation(self.conv_down1(x))
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        return self.activation(self.conv_up1(x))


def make_model():
    return DummyModel()


def example_inputs():
    return (torch.randn(1, 1, 12, 12),)


def other_inputs():
    return [(torch.randn(1, 1, 17, 9),), (torch.randn(1, 1, 20, 24),)]


def probe_inputs():
    return other_inputs()
