"""Nearest-neighbour model asking for `cdist` export; the issue's own workaround branches on `p == 1`
(`diffs.abs().sum(dim=2)`). Here `torch.cdist(x1, x2, p=1)`.

Source: https://github.com/pytorch/pytorch/issues/69201
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x1": {0: "n"}, "x2": {0: "m"}}


class L1Dist(nn.Module):
    def forward(self, x1, x2):
        return torch.cdist(x1, x2, p=1)


def make_model():
    return L1Dist()


def example_inputs():
    return (torch.randn(4, 3), torch.randn(5, 3))


def other_inputs():
    return [(torch.randn(7, 3), torch.randn(2, 3)), (torch.randn(4, 3), torch.randn(9, 3))]


def probe_inputs():
    return other_inputs()
