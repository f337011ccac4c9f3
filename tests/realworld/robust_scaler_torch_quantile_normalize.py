"""Regression head that robust-scales each input row by its own 5th/95th percentiles with
`torch.quantile` before the MLP. The report says `torch.quantile` is not ONNX exportable:
"Exporting the operator quantile to ONNX opset version 11 is not supported".

Source: https://github.com/onnx/onnx/issues/3905
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-9"


class RobustScaledRegressor(nn.Module):
    def __init__(self, n_features=32, hidden=64):
        super().__init__()
        self.register_buffer("q", torch.tensor([0.05, 0.95]))
        self.mlp = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        lo, hi = torch.quantile(x, self.q, dim=1, keepdim=True)
        x = (x - lo) / (hi - lo + 1e-6)
        x = x.clamp(0.0, 1.0)
        return self.mlp(x)


def make_model():
    return RobustScaledRegressor()


def example_inputs():
    return (torch.randn(8, 32),)


def other_inputs():
    return [(torch.randn(13, 32),), (torch.randn(3, 32),)]


def probe_inputs():
    return other_inputs()
