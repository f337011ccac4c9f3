"""`x / float(scale)` with scale unannotated: statically not known to be a tensor, not reported."""

import torch
from torch import nn


class FloatCast(nn.Module):
    def forward(self, x, scale):
        return torch.tanh(x) / float(scale)


def example_inputs():
    return (torch.randn(2, 3), torch.tensor(4.0))


def probe_inputs():
    return [(torch.randn(5, 3), torch.tensor(0.5))]


DYNAMIC = {"x": {0: "batch"}}
