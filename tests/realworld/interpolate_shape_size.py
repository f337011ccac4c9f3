"""`nn.functional.interpolate(x, size=(x.shape[-2], x.shape[-1]))` should stay dynamic, but the exported
model kept the example's size.

Source: https://github.com/pytorch/pytorch/issues/84374
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}, "y": {0: "batch"}}


class TestModel(nn.Module):
    def forward(self, x, y):
        out = nn.functional.interpolate(y, size=(x.shape[-2], x.shape[-1]))
        return out + x


def make_model():
    return TestModel()


def example_inputs():
    return (torch.randn(2, 4, 12, 12), torch.randn(2, 4, 6, 6))


def other_inputs():
    return [(torch.randn(3, 4, 16, 25), torch.randn(3, 4, 6, 6)), (torch.randn(1, 4, 8, 10), torch.randn(1, 4, 6, 6))]


def probe_inputs():
    return other_inputs()
