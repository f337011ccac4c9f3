"""A model both exporters get right, with a dynamic batch."""

import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin(x)) * scale


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return Scaled()


def example_inputs():
    return (torch.randn(2, 4), torch.tensor(1.5))


DYNAMIC = {"x": {0: "batch"}}
