"""PointPillars PFN layer: `torch.masked_select` (function form) on the features, result returned;
reported as `KeyError: 'masked_select'`.

Source: https://github.com/pytorch/pytorch/issues/27959
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"inputs": {0: "pillars"}}


class PFNLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 8)

    def forward(self, inputs):
        x = torch.relu(self.linear(inputs))
        mask = x > 0.1
        return torch.masked_select(x, mask)


def make_model():
    return PFNLayer()


def example_inputs():
    return (torch.randn(5, 3, 4),)


def other_inputs():
    return [(torch.randn(7, 3, 4),), (torch.randn(5, 3, 4),)]


def probe_inputs():
    return other_inputs()
