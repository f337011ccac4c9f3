"""`x.data` on forward's unannotated argument (the torch docs' pitfall): statically x might be a
PackedSequence, so `.detach()` is an unsafe fix; the recorded run saw only tensors."""

import torch
from torch import nn


class DataParam(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x.data) + 1


def example_inputs():
    return (torch.randn(2, 4),)


def probe_inputs():
    return [(torch.randn(5, 4),)]


DYNAMIC = {"x": {0: "batch"}}
