"""`__interpolate`'s `scale_factor` "is converted to a constant": the factor is computed from two inputs' sizes.

Source: https://github.com/pytorch/pytorch/issues/82811
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {2: "h", 3: "w"}, "ref": {2: "rh", 3: "rw"}}


class Upsample(nn.Module):
    def forward(self, x, ref):
        scale = ref.shape[-1] // x.shape[-1]
        return F.interpolate(x, scale_factor=scale, mode="nearest")


def make_model():
    return Upsample()


def example_inputs():
    return (torch.randn(1, 1, 4, 4), torch.randn(1, 1, 8, 8))


def other_inputs():
    return [(torch.randn(1, 1, 3, 5), torch.randn(1, 1, 9, 15)), (torch.randn(1, 1, 6, 2), torch.randn(1, 1, 12, 4))]


def probe_inputs():
    return other_inputs()
