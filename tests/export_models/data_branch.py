"""A gate decided by a Python number taken from a tensor: torch.export cannot capture it."""

import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum().item() > 0:
            return x * 2
        return -x


def example_inputs():
    return (torch.ones(2, 3),)
