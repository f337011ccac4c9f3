"""A float16 input is shifted by a float16 constant ([[500.]]), cast to float64 and reduced with argmax(1);
the report finds the onnxruntime result of the exported (opset 14) model's argmax output mismatching (it changes
with graph optimization / an extra transpose output), while PyTorch gives the first maximal index.

Source: https://github.com/microsoft/onnxruntime/issues/18227
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"v3_0": {0: "batch", 2: "h", 3: "w"}}
BLIND = "operators-16"

p0 = torch.tensor([[500.000]], dtype=torch.float16)


class Model0(nn.Module):
    def __init__(self):
        super().__init__()
        self.v4_0 = p0

    def forward(self, v3_0):
        _args = (v3_0,)
        v4_0 = self.v4_0
        getitem = _args[0]
        add = torch.add(getitem, v4_0)
        to_1 = add.to(dtype=torch.float64)
        argmax = to_1.argmax(1)
        return argmax


def make_model():
    return Model0()


def _inp(*shape):
    return (torch.rand(*shape) * 4 + 3).to(torch.float16)   # values like the report's (3.0 .. 7.0)


def example_inputs():
    return (_inp(1, 16, 6, 8),)


def other_inputs():
    return [(_inp(2, 16, 5, 7),), (_inp(3, 16, 9, 4),)]


def probe_inputs():
    return other_inputs()
