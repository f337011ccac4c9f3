"""`torch.linspace(-1.0, 1.0, x[0,0])` with the number of steps read from the input tensor; the
exported model gives a vector of the new length but with wrong values in onnxruntime.

Source: https://github.com/pytorch/pytorch/issues/73559
"""
import torch
import torch.nn as nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch_size"}}
BLIND = "domains-10"


class SimpleModule(nn.Module):
    def __init__(self):
        super(SimpleModule, self).__init__()

    def forward(self, x):
        return torch.linspace(-1.0, 1.0, x[0,0])


def make_model():
    return SimpleModule()


def example_inputs():
    return (torch.IntTensor([[6]]),)


def other_inputs():
    return [(torch.IntTensor([[5], [2]]),), (torch.IntTensor([[7], [1], [3]]),)]


def probe_inputs():
    return other_inputs()
