"""`t.data` in a helper function reached from forward; t is the helper's unannotated parameter."""

import torch
from torch import nn


def centered(t):
    return t.data - t.mean()


class DataHelper(nn.Module):
    def forward(self, x: torch.Tensor):
        return centered(x) * 3


def example_inputs():
    return (torch.randn(2, 5),)


def probe_inputs():
    return [(torch.randn(4, 7),)]


DYNAMIC = {"x": {0: "batch", 1: "width"}}
