"""Gated activation `x * LeakyReLU(x)` computed in float64 (NNSmith fuzzer report). The report: the legacy
exporter casts the LeakyReLU branch so the graph output comes back float32 instead of float64; on the
dynamo exporter the float64 LeakyRelu node is kept, and onnxruntime's CPU provider has no double kernel for
LeakyRelu (NOT_IMPLEMENTED), so the double-precision model cannot be run.

Source: https://github.com/pytorch/pytorch/issues/85316
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "features"}}
BLIND = "operators-31"


class MulLeakyReLU(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = torch.nn.LeakyReLU(negative_slope=0.1)

    def forward(self, x):
        return x * self.m(x)


def make_model():
    return MulLeakyReLU()


def example_inputs():
    return (torch.randn((4, 16), dtype=torch.float64),)


def other_inputs():
    return [(torch.randn((3, 10), dtype=torch.float64),), (torch.randn((7, 5), dtype=torch.float64),)]


def probe_inputs():
    return other_inputs()
