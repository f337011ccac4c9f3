"""Control: `x + x.sum()` without the NumPy round trip (the Tensor.numpy fix for non-strict export).

Source: https://github.com/pytorch/pytorch/pull/185774
"""
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
CONTROL = True
DYNAMIC = {"x": {0: "rows"}}


class Foo(nn.Module):
    def forward(self, x):
        return x + x.sum()


def make_model():
    return Foo()


def example_inputs():
    return (torch.randn(10, 10),)


def other_inputs():
    return [(torch.randn(4, 10),), (torch.randn(12, 10),)]


def probe_inputs():
    return other_inputs()
