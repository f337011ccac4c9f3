"""`x.data * 2 + x`: segfaults the dynamo exporter on torch 2.13 (Part A, case 4a)."""

import torch
from torch import nn


class DataTwice(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.data * 2 + x


def example_inputs():
    return (torch.randn(3, 4),)
