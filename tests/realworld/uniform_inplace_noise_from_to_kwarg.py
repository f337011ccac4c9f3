"""Uniform noise drawn in forward with the in-place Tensor.uniform_(from, to=...) (the form used
in the PR's own test, `x.uniform_(2, to=2)`): the PR "Add uniform to onnx export" (never merged)
tried to map aten::uniform to ONNX RandomUniform because torch.onnx.export raised "Exporting the
operator uniform to ONNX ... is not supported" for such models (#42230, #54483).

Source: https://github.com/pytorch/pytorch/pull/66263
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-57"


class NoisyUniformMLP(nn.Module):
    def __init__(self, dim=16, hidden=32, low=-0.1, high=0.1):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.low = low
        self.high = high

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        noise = torch.empty_like(h).uniform_(self.low, to=self.high)
        return self.fc2(h + noise)


def make_model():
    return NoisyUniformMLP().eval()


def example_inputs():
    return (torch.randn(4, 16),)


def other_inputs():
    return [(torch.randn(7, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
