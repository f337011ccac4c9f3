"""Decoder extracting local patches with `Tensor.unfold`: "Exporting the operator unfold to ONNX is not supported".

Source: https://github.com/pytorch/pytorch/issues/69889
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "time"}}


class Patches(nn.Module):
    def forward(self, x):
        patches = x.unfold(2, 4, 2)
        return patches.mean(-1)


def make_model():
    return Patches()


def example_inputs():
    return (torch.randn(1, 3, 16),)


def other_inputs():
    return [(torch.randn(2, 3, 23),), (torch.randn(1, 3, 10),)]


def probe_inputs():
    return other_inputs()
