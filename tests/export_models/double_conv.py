"""A small conv net run in float64 (`.double()`), as scientific users do: both exporters write it,
but onnxruntime's CPU provider has no double Conv kernel (NOT_IMPLEMENTED)."""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).mean((2, 3)))


def make_model():
    torch.manual_seed(0)
    return Net().double()


def example_inputs():
    return (torch.randn(2, 3, 8, 8, dtype=torch.float64),)
