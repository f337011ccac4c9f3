"""A model clones its input, takes a view of one row (`yyy = y[1,...]`) and adds to it in place
(`yyy += 2`) before returning the clone; TorchScript tracing keeps the update but the exported ONNX
model loses it and returns the unmodified copy.

Source: https://github.com/pytorch/pytorch/issues/122290
"""
import torch
import torch.nn as nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {1: "rows", 2: "cols"}}
BLIND = "domains-12"


class Model(nn.Module):
    def forward(self, x):
        y = x.clone()
        yyy = y[1,...]
        yyy += 2
        return y


def make_model():
    return Model()


def example_inputs():
    return (torch.ones(2, 3, 4),)


def other_inputs():
    return [(torch.randn(2, 5, 7),), (torch.randn(2, 1, 2),)]


def probe_inputs():
    return other_inputs()
