"""`x.bincount(weights)` with a `torch.linspace` weight vector: the output length is max(x) + 1, a
size that depends on the values. torch.export raised "dynamic shape operator: aten.bincount.default;
Operator does not have a meta kernel that supports dynamic output shapes".

Source: https://github.com/pytorch/pytorch/issues/147094
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {}
BLIND = "operators-16"


class BincountDummyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        weights = torch.linspace(0, 1, steps=5)
        bc = x.bincount(weights)
        return bc


def make_model():
    return BincountDummyModel()


def example_inputs():
    return (torch.tensor([0, 3, 1, 3, 7], dtype=torch.int64),)


def other_inputs():
    return [
        (torch.tensor([2, 2, 5, 0, 1], dtype=torch.int64),),
        (torch.tensor([9, 4, 4, 6, 11], dtype=torch.int64),),
    ]


def probe_inputs():
    return other_inputs()
