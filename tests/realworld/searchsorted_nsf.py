"""Zuko neural spline flow: the bin lookup uses `torch.searchsorted`; "Exporting the operator
'aten::searchsorted' to ONNX opset version 17".

Source: https://github.com/pytorch/pytorch/issues/126549
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class Spline(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("knots", torch.linspace(-3, 3, 9))
        self.register_buffer("slopes", torch.rand(10) + 0.5)

    def forward(self, x):
        bins = torch.searchsorted(self.knots, x.contiguous())
        return x * self.slopes[bins]


def make_model():
    return Spline()


def example_inputs():
    return (torch.randn(5, 2),)


def other_inputs():
    return [(torch.randn(9, 2) * 2,), (torch.randn(1, 2),)]


def probe_inputs():
    return other_inputs()
