"""Kokoro TTS (export benchmark): `x + x.numpy().sum()`; non-strict export raises
".numpy() is not supported for tensor subclasses".

Source: https://github.com/pytorch/pytorch/issues/148779
"""
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"x": {0: "rows"}}


class Foo(nn.Module):
    def forward(self, x):
        return x + x.numpy().sum()


def make_model():
    return Foo()


def example_inputs():
    return (torch.randn(10, 10),)


def other_inputs():
    return [(torch.randn(4, 10),), (torch.randn(12, 10),)]


def probe_inputs():
    return other_inputs()
