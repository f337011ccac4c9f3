"""`x.as_strided(size=shape, stride=stride)` with size and stride computed from `x.size()` and
`x.stride()`; with dynamic axes the export raises nothing but the ONNX model is wrong (strides baked
from the example input).

Source: https://github.com/pytorch/pytorch/issues/90607
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "axis0", 1: "axis1", 2: "axis2"}}
BLIND = "operators-1"


class MyModel3(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        a, b, c = x.size()

        strides_original = x.stride()

        shape = (a, b // 2, 4)
        stride = (strides_original[0] // 2, strides_original[1] - 3, 3)

        x_strided = x.as_strided(size=shape, stride=stride)

        return x_strided


def make_model():
    return MyModel3()


def example_inputs():
    return (torch.randint(8, (50, 30, 15)) + 1,)


def other_inputs():
    return [(torch.randint(8, (40, 20, 12)) + 1,), (torch.randint(8, (60, 36, 17)) + 1,)]


def probe_inputs():
    return other_inputs()
