"""The TorchDynamo toy example: `x = a / (torch.abs(a) + 1)` and then `if b.sum() < 0: b = b * -1`;
exporting it fails with "Dynamic control flow is not supported at the moment" because the branch
depends on the values of `b` (works when the condition is on `b.dim()`).

Source: https://github.com/pytorch/pytorch/issues/101255
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"a": {0: "n"}, "b": {0: "n"}}
BLIND = "domains-12"


class Foo(nn.Module):
    def forward(self, a, b):
        x = a/(torch.abs(a)+1)
        if b.sum() < 0:
            b = b * -1
        return x * b


def make_model():
    return Foo()


def example_inputs():
    return (torch.randn(10), torch.rand(10) + 0.5)


def other_inputs():
    return [(torch.randn(7), -torch.rand(7) - 0.5), (torch.randn(13), torch.rand(13) + 0.5)]


def probe_inputs():
    return other_inputs()
