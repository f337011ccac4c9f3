"""Candidate re-ranking head that scores items and returns their order with
`v, inds = torch.sort(x, stable=False)`; passing `stable` (even False) selects the `sort.stable`
overload, and export fails ("Unsupported: ONNX export of operator Sort, Out parameter is not
supported"), while plain `torch.sort(x)` exports.

Source: https://github.com/pytorch/pytorch/issues/95613
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "items"}}
BLIND = "operators-2"


class Demo(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        # x: (num_candidates, 16) item features
        s = self.score(x).squeeze(-1)
        v, inds = torch.sort(s, stable=False)
        return inds


def make_model():
    return Demo()


def example_inputs():
    return (torch.randn(61, 16),)


def other_inputs():
    return [(torch.randn(20, 16),), (torch.randn(137, 16),)]


def probe_inputs():
    return other_inputs()
