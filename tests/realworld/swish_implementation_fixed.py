"""Control: EfficientDet's export path (`Swish()` when `onnx_export`): `x * torch.sigmoid(x)` without the Function.

Source: https://github.com/pytorch/pytorch/issues/56458
"""
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
CONTROL = True
DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        x = self.conv(x)
        return x * torch.sigmoid(x)


def make_model():
    return Block()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)


def other_inputs():
    return [(torch.randn(2, 3, 10, 6),), (torch.randn(1, 3, 5, 5),)]


def probe_inputs():
    return other_inputs()
