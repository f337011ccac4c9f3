"""Module returning `torch.cumprod(x, dim=-1)` over a (1, 1, 1024, 65) feature map;
"Exporting the operator 'aten::cumprod' to ONNX opset version 14 is not supported".

Source: https://github.com/pytorch/pytorch/issues/102948
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "rows", 3: "cols"}}
BLIND = "operators-1"


class Test(nn.Module):
    def forward(self, x):
        return torch.cumprod(x, dim=-1)


def make_model():
    return Test()


def example_inputs():
    return (torch.rand(1, 1, 1024, 65) + 0.5,)


def other_inputs():
    return [(torch.rand(2, 1, 300, 40) + 0.5,), (torch.rand(1, 1, 17, 9) + 0.5,)]


def probe_inputs():
    return other_inputs()
