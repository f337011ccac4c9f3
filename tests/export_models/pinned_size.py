"""A branch on a dynamic size: the capture pins x.shape[1] to the example's 16 (ONX914 at the `if`)."""

import torch
from torch import nn


class Pinned(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[1]
        if n == 16:
            return x * 2
        return x


def example_inputs():
    return (torch.randn(2, 16),)


DYNAMIC = {"x": [1]}
