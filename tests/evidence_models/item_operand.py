"""`x * s.item()` with x unannotated: statically not known to be tensor arithmetic, no fix."""

import torch
from torch import nn


class ItemOperand(nn.Module):
    def forward(self, x, s):
        y = x - s.item()
        return y


def example_inputs():
    return (torch.randn(2, 3), torch.tensor(0.5))


def probe_inputs():
    return [(torch.randn(4, 3), torch.tensor(2.0))]


DYNAMIC = {"x": {0: "batch", 1: "width"}}
