"""A model that is a single Abs on a bfloat16 tensor of shape (N, 4, 5) (the report built it with
onnx-graphsurgeon and ran it with polygraphy): onnxruntime fails with "NOT_IMPLEMENTED : Could not
find an implementation for Abs(13) node", while the same model in float16 works.

Source: https://github.com/microsoft/onnxruntime/issues/23875
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"X": {0: "batch"}}
BLIND = "operators-13"


class Abs0(nn.Module):
    def forward(self, X):
        Y = torch.abs(X)
        return Y


def make_model():
    return Abs0().eval()


def example_inputs():
    return (torch.randn(2, 4, 5, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(3, 4, 5, dtype=torch.bfloat16),), (torch.randn(1, 4, 5, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
