"""`torch.as_strided` on a slice `x[0:6]` reads past the slice into the underlying storage (valid in
eager); torch.onnx.export gives a graph that gathers from the 6-element slice, and ONNX Runtime fails
with "indices element out of data bounds, idx=6 must be within the inclusive range [-6,5]".

Source: https://github.com/microsoft/onnxruntime/issues/28342
"""
import torch
import torch.nn as nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "length"}}
BLIND = "domains-18"


class MyModel(nn.Module):
    def forward(self, x):
        sliced = x[0:6]
        return torch.as_strided(sliced, size=(6, 4), stride=(1, 1))


def make_model():
    return MyModel()


def example_inputs():
    return (torch.randn(10),)


def other_inputs():
    return [(torch.randn(12),), (torch.randn(9),)]


def probe_inputs():
    return other_inputs()
