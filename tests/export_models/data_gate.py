"""A gate whose level is read out of a tensor in forward and tested in another method:
torch.export stops at the `if` (a data-dependent guard), the value comes from the `.item()`."""

import torch
from torch import nn


class LevelGate(nn.Module):
    def gate(self, x: torch.Tensor, level):
        if level > 0.5:
            return x * 2
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        level = x.mean().item()
        return self.gate(x, level)


def example_inputs():
    return (torch.ones(2, 3),)
