"""The torch docs' `.data` pitfall over two lines: `x.data` is read by forward's first
statement, a gate, before the return reads `self.scale.data`. Statically x might be a
PackedSequence, so `.detach()` is an unsafe fix; the recorded run saw only tensors, also on
the first line (issue 26)."""

import torch
from torch import nn


class DataGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x):
        gate = torch.sigmoid(x.data)
        return x * gate + self.scale.data


def make_model():
    return DataGate()


def example_inputs():
    return (torch.randn(2, 4),)


def probe_inputs():
    return [(torch.randn(5, 4),)]


DYNAMIC = {"x": {0: "batch"}}
