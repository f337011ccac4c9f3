"""`self.fc(x) * scale.item()`: keeping the 0-d tensor is unsafe statically (type promotion)."""

import torch
from torch import nn


class ItemDirect(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, scale):
        return self.fc(x) * scale.item()


def example_inputs():
    return (torch.randn(2, 4), torch.tensor(0.75))


def probe_inputs():
    return [(torch.randn(6, 4), torch.tensor(-3.0))]


DYNAMIC = {"x": {0: "batch"}}
