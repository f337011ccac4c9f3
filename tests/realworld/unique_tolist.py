"""`torch.unique(x).tolist()` in the exported function ("dynamo supports Tensor.tolist but not Tensor.item"):
the unique values leave the graph as a Python list.

Source: https://github.com/pytorch/pytorch/issues/114483
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "n"}}


class Unique(nn.Module):
    def forward(self, x):
        values = torch.unique(x).tolist()
        return torch.tensor(values, dtype=x.dtype).sum() + x.sum() * 0


def make_model():
    return Unique()


def example_inputs():
    return (torch.tensor([3, 1, 3, 2, 1, 5]),)


def other_inputs():
    return [(torch.tensor([7, 7, 2, 9]),), (torch.tensor([1, 2, 3, 4, 5, 6, 1, 2]),)]


def probe_inputs():
    return other_inputs()
