"""A forward with an int default (CLOVA's `batch_max_length=6`): the legacy exporter appends the
default to the arguments and keeps it as a graph input when a size is computed from it, so the
ONNX model takes one more input than the call."""
import torch
from torch import nn


class Steps(nn.Module):
    def forward(self, x, extra=2, steps=3):  # `extra` unused: no input of its own
        total = steps + 1
        return x.new_zeros(x.shape[0], total) + x.sum(1, keepdim=True)


def make_model():
    return Steps()


def example_inputs():
    return (torch.randn(2, 5),)


def probe_inputs():
    return [(torch.randn(4, 5),)]
