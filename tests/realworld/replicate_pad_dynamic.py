"""`F.pad(I, (0, 0, 0, H), mode="replicate")` with `H = I.shape[2]` under dynamic shapes: the dynamo
translation of `aten.pad` with a symbolic amount failed.

Source: https://github.com/microsoft/onnxscript/issues/2539
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "shape_math"
DYNAMIC = {"I": {2: "h"}}


class Pad(nn.Module):
    def forward(self, I):
        H = I.shape[2]
        return F.pad(I, (0, 0, 0, H), mode="replicate")


def make_model():
    return Pad()


def example_inputs():
    return (torch.randn(1, 1, 4, 1),)


def other_inputs():
    return [(torch.randn(1, 1, 7, 1),), (torch.randn(1, 1, 2, 1),)]


def probe_inputs():
    return other_inputs()
