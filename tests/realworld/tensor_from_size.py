""""onnx.export make size operations return Tensor instead of int": code that wraps sizes back into tensors,
here `torch.tensor(x.shape[-1])` as a normaliser.

Source: https://github.com/pytorch/pytorch/issues/86481
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 3: "w"}}


class ExampleIdentity(nn.Module):
    def forward(self, x):
        width = torch.tensor(x.shape[-1], dtype=torch.float32)
        return x / width


def make_model():
    return ExampleIdentity()


def example_inputs():
    return (torch.rand(1, 3, 8, 10),)


def other_inputs():
    return [(torch.rand(2, 3, 8, 7),), (torch.rand(1, 3, 8, 16),)]


def probe_inputs():
    return other_inputs()
