"""Incorrect traced graph for in-place ops: an `index_put_` through a view of the output (the ONNX trace runs
out-of-place, so the write is lost).

Source: https://github.com/pytorch/pytorch/issues/29008
"""
import torch
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "n"}}


class Write(nn.Module):
    def forward(self, x):
        y = x.clone()
        v = y[:, 1:]
        v.add_(1)
        y.t()[0].mul_(2)
        flat = y.view(-1)
        flat.add_(0.25)
        return y


def make_model():
    return Write()


def example_inputs():
    return (torch.randn(3, 4),)


def other_inputs():
    return [(torch.randn(5, 4),), (torch.randn(2, 4),)]


def probe_inputs():
    return other_inputs()
