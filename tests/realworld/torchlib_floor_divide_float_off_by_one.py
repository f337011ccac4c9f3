"""`torch.floor_divide` on float tensors (the torchlib OpInfo test, shape [10, 10, 5]). PyTorch computes
the floored quotient from the remainder (`(a - fmod(a, b)) / b`, so 0.7 // 0.1 == 6), while the ONNX
lowering is `Floor(Div(a, b))`, which rounds the inexact quotient 7.000001 down to 7: the exported model
is off by one wherever a / b lands on (or just above) an integer.

Source: https://github.com/microsoft/onnxscript/issues/989
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"input": {0: "d0", 1: "d1", 2: "d2"}, "other": {0: "d0", 1: "d1", 2: "d2"}}
BLIND = "operators-35"


class FloorDivide(nn.Module):
    def forward(self, input, other):
        return torch.floor_divide(input, other)


def make_model():
    return FloorDivide()


def _pair(shape):
    # values on a 0.1 grid, divisors 0.1 .. 0.5: quotients that are (nearly) whole numbers
    a = torch.randint(-40, 40, shape).float() * 0.1
    b = torch.randint(1, 6, shape).float() * 0.1
    return (a, b)


def example_inputs():
    return _pair((10, 10, 5))


def other_inputs():
    return [_pair((4, 7, 3)), _pair((12, 2, 9))]


def probe_inputs():
    return other_inputs()
