"""No rule: an augmented assignment into a slice of an input (docs/rules-flow.md, measured)."""
import torch
from torch import nn


class ShiftTail(nn.Module):
    def forward(self, x: torch.Tensor):
        x[:, 1:] += 1
        return x * 2


def make_model():
    return ShiftTail()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 5),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 5) * 5,), (torch.randn(6, 8),)]


DYNAMIC = {0: {0: "rows", 1: "cols"}}
