"""A bfloat16 `nn.Linear(10, 5, bias=False, dtype=torch.bfloat16)` fed bfloat16 activations, exported
with the dynamo exporter and checked with onnxruntime; the issue says ONNX Runtime does not support the
model's bfloat16 inputs/compute on CPU, so the exported linear cannot be run.

Source: https://github.com/microsoft/onnxscript/issues/1462
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"tensor_x": {0: "batch"}}
BLIND = "operators-12"


class MyLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 5, bias=False, dtype=torch.bfloat16)

    def forward(self, tensor_x: torch.Tensor):
        return self.fc1(tensor_x)


def make_model():
    return MyLinear().eval()


def example_inputs():
    return (torch.rand((3, 10), dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.rand((7, 10), dtype=torch.bfloat16),), (torch.rand((1, 10), dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
