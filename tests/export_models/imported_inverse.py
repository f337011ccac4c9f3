"""inverse.py's Whiten used from another file: the failing op (aten.linalg_inv) is in code the
target's fixes do not edit, as a library's would be; `--fix` exports with the decomposition."""

import torch
from torch import nn

from inverse import Whiten


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.whiten = Whiten()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.whiten(x).relu()


def example_inputs():
    return (torch.randn(6, 4),)
