"""Batched pairwise distances `torch.cdist(x, y)` between two small point sets, a Cdist module like
the one the PR adding ONNX export for torch.cdist / torch.cross tests. For point counts <= 25 PyTorch
keeps `aten::_cdist_forward` (non-matmul path) and the dynamo exporter has no ONNX function for it.

Source: https://github.com/pytorch/pytorch/pull/75278
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}, "y": {0: "batch"}}
BLIND = "operators-63"


class Cdist(nn.Module):
    def forward(self, x, y):
        return torch.cdist(x, y)


def make_model():
    return Cdist()


def example_inputs():
    return (torch.randn(5, 3, 4), torch.randn(5, 2, 4))


def other_inputs():
    return [(torch.randn(2, 3, 4), torch.randn(2, 2, 4)),
            (torch.randn(7, 3, 4), torch.randn(7, 2, 4))]


def probe_inputs():
    return other_inputs()
