""""Unsupported builtin operators for torch.export.export": Python arithmetic and `math.ceil` / `math.floor`
on `.item()` values, wrapped back with `torch.tensor([...])`.

Source: https://github.com/pytorch/pytorch/issues/113778
"""
import math

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "shape_math"
DYNAMIC = {}


class Builtins(nn.Module):
    def forward(self, x, y):
        return (
            torch.tensor([x.item() + y.item()]),
            torch.tensor([x.item() * y.item()]),
            torch.tensor([math.ceil(x.item())]),
            torch.tensor([math.floor(x.item())]),
        )


def make_model():
    return Builtins()


def example_inputs():
    return (torch.tensor([1.5]), torch.tensor([-0.25]))


def other_inputs():
    return [(torch.tensor([-2.7]), torch.tensor([3.0])), (torch.tensor([0.2]), torch.tensor([0.9]))]


def probe_inputs():
    return other_inputs()
