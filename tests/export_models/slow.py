"""A model whose export outlasts any short timeout, whatever the machine's speed.

The forward sleeps: a timeout test on a real (fast) export is a race that a fast
machine loses (the CI's did: a tiny export finished within 0.5 s there).
"""

import time

import torch
from torch import nn


class Sleepy(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time.sleep(30)
        return x + 1


def make_model() -> nn.Module:
    return Sleepy()


def example_inputs():
    return (torch.randn(2, 4),)
