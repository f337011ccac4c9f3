"""A float64 model applies `torch.relu` and then `torch.clip(x, -1, 1)`; the report says the export succeeds
and passes the ONNX checker, but with float64 inputs onnxruntime raises a RuntimeException when creating the
session (the Relu+Clip pattern is not handled for double), while float32 works.

Source: https://github.com/microsoft/onnxruntime/issues/10936
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"i1": {0: "batch", 1: "steps"}}
BLIND = "operators-8"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2).double()

    @torch.no_grad()
    def forward(self, i1):
        i1 = self.fc(i1)
        x = torch.relu(i1)
        o0 = torch.clip(x, -1, 1)
        return o0


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn((2, 2, 2, 1, 2), dtype=torch.float64),)


def other_inputs():
    return [
        (torch.randn((3, 5, 2, 1, 2), dtype=torch.float64),),
        (torch.randn((1, 4, 2, 1, 2), dtype=torch.float64),),
    ]


def probe_inputs():
    return other_inputs()
