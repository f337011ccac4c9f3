"""`k = float(gain)` then `x * k + bias`: the cast's value flows through a name (only an unsafe
fix statically, even with gain annotated: dropping float() changes promotion in general)."""

import torch
from torch import nn


class FloatName(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(3))

    def forward(self, x: torch.Tensor, gain: torch.Tensor):
        k = float(gain)
        return x * k + self.bias


def example_inputs():
    return (torch.randn(2, 3), torch.tensor(2.5, dtype=torch.float64).float())


def probe_inputs():
    return [(torch.randn(7, 3), torch.tensor(-1.25))]


DYNAMIC = {"x": {0: "batch"}}
