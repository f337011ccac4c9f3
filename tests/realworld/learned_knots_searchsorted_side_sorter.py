"""A piecewise-linear calibration layer with learnable (unsorted) knots that locates each input's
segment with `torch.searchsorted(knots, x, side="right", sorter=order)`. Neither exporter can emit it
(ONNX has no search-sorted operator); the report is the RFC proposing a `Searchsorted` operator with
the array-API `side` attribute and an optional `sorter` input, because today it can only be spelled
with costly comparison-matrix or Scan workarounds.

Source: https://github.com/onnx/onnx/pull/7646
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "features"}}
BLIND = "operators-35"


class LearnedKnotCalibration(nn.Module):
    def __init__(self, num_knots=9):
        super().__init__()
        self.knots = nn.Parameter(torch.randn(num_knots))
        self.values = nn.Parameter(torch.randn(num_knots))

    def forward(self, x):
        order = torch.argsort(self.knots)
        idx = torch.searchsorted(self.knots, x, side="right", sorter=order)
        idx = idx.clamp(1, self.knots.numel() - 1)
        lo = order[idx - 1]
        hi = order[idx]
        x0, x1 = self.knots[lo], self.knots[hi]
        y0, y1 = self.values[lo], self.values[hi]
        t = (x - x0) / (x1 - x0)
        return y0 + t * (y1 - y0)


def make_model():
    return LearnedKnotCalibration().eval()


def example_inputs():
    return (torch.randn(4, 6),)


def other_inputs():
    return [(torch.randn(7, 3),), (torch.randn(2, 11),)]


def probe_inputs():
    return other_inputs()
