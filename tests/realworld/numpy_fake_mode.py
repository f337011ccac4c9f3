"""`.numpy()` in forward under FakeTensorMode / torch.export: "Ignore .numpy() under FakeTensorMode"
(the tensor goes through NumPy and comes back).

Source: https://github.com/pytorch/pytorch/issues/120259
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"input": {0: "n"}}


class MyNumpyModel(nn.Module):
    def forward(self, input):
        return torch.from_numpy(np.tanh(input.numpy()))


def make_model():
    return MyNumpyModel()


def example_inputs():
    return (torch.randn(1000),)


def other_inputs():
    return [(torch.randn(37),), (torch.randn(1000) * 3,)]


def probe_inputs():
    return other_inputs()
