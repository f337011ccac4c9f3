"""Piecewise-linear lookup (numpy.interp style) inside a model being merged into a larger exported
graph: `torch.searchsorted` finds the interval of each query point in a sorted grid. ONNX export
fails because aten::searchsorted has neither an ONNX symbolic nor a decomposition (the report asks
for a decomposition after the earlier UnsupportedOperatorError for opset 20).

Source: https://github.com/pytorch/pytorch/issues/151793
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "points"}}
BLIND = "operators-15"


class Interp1d(nn.Module):
    def __init__(self, n_knots=32):
        super().__init__()
        self.register_buffer("xp", torch.linspace(0.0, 1.0, n_knots))
        self.fp = nn.Parameter(torch.randn(n_knots).cumsum(0))

    def forward(self, x):
        x = x.clamp(self.xp[0], self.xp[-1])
        idx = torch.searchsorted(self.xp, x.contiguous(), right=True)
        idx = idx.clamp(1, self.xp.numel() - 1)
        x0, x1 = self.xp[idx - 1], self.xp[idx]
        f0, f1 = self.fp[idx - 1], self.fp[idx]
        w = (x - x0) / (x1 - x0)
        return f0 + w * (f1 - f0)


class CalibratedScorer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(1, dim)
        self.calib = Interp1d()

    def forward(self, x):
        y = self.calib(torch.sigmoid(x))
        return self.proj(y.unsqueeze(-1))


def make_model():
    return CalibratedScorer()


def example_inputs():
    return (torch.randn(2, 50),)


def other_inputs():
    return [(torch.randn(3, 77),), (torch.randn(1, 13),)]


def probe_inputs():
    return other_inputs()
