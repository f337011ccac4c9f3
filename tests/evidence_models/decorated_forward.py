"""A forward under `@torch.no_grad()` calling a helper: torch's decorator wraps it, and the
recorder must still take the module for the user's (it unwraps `__wrapped__`)."""
import torch
from torch import nn


def crop(x, n):
    return x[:, :n]


class Decorated(nn.Module):
    @torch.no_grad()
    def forward(self, x, n):
        return crop(x, n[0]) * 2


def make_model():
    return Decorated()


def example_inputs():
    return (torch.randn(2, 6), torch.tensor([3], dtype=torch.int32))
