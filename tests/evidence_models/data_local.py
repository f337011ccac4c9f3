"""`h.data` where h comes from a module of this file whose forward has no return annotation."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


class DataLocal(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x: torch.Tensor):
        h = self.block(x)
        return h.data * 2 + x


def example_inputs():
    return (torch.randn(3, 4),)


def probe_inputs():
    return [(torch.randn(6, 4),)]


DYNAMIC = {"x": {0: "batch"}}
