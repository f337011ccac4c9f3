"""A model that casts its real input to complex64 (`x.to(torch.complex64)`) and slices the complex
tensor (`x_complex[:, :2]`). Eager runs, but the report says `torch.onnx.export(..., dynamo=True)`
fails "due to the slice op on a complex tensor"; ONNX has no complex tensor type, so the cast and
the complex output have no direct translation.

Source: https://github.com/pytorch/pytorch/issues/147896
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-41"


class ComplexSliceModel(torch.nn.Module):
    def forward(self, x):
        # Convert input to a complex tensor
        x_complex = x.to(torch.complex64)
        # Apply a slice operation on the complex tensor
        return x_complex[:, :2]


def make_model():
    return ComplexSliceModel()


def example_inputs():
    return (torch.randn(3, 4),)


def other_inputs():
    return [(torch.randn(5, 4),), (torch.randn(2, 4),)]


def probe_inputs():
    return other_inputs()
