"""Bucketing with `torch.searchsorted(boundaries, values, right=True)`: "UnsupportedOperatorError: Exporting the
operator 'aten::searchsorted' to ONNX opset version 20 is not supported".

Source: https://github.com/pytorch/pytorch/issues/151648
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"values": {0: "n"}}


class Bucketize(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("boundaries", torch.tensor([-1.0, -0.2, 0.0, 0.5, 2.0]))

    def forward(self, values):
        return torch.searchsorted(self.boundaries, values, right=True)


def make_model():
    return Bucketize()


def example_inputs():
    return (torch.tensor([-1.0, 0.3, 0.0, 5.0, -3.0]),)


def other_inputs():
    return [(torch.randn(9),), (torch.tensor([0.5, -0.2]),)]


def probe_inputs():
    return other_inputs()
