"""`Tensor.argsort()` with a dynamic axis: "argsort not found when ONNX exporting" (`KeyError: 'argsort'`).

Source: https://github.com/pytorch/pytorch/issues/33412
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class Demo(nn.Module):
    def forward(self, x):
        return x.argsort(descending=True)


def make_model():
    return Demo()


def example_inputs():
    return (torch.randperm(61).float(),)


def other_inputs():
    return [(torch.randperm(17).float(),), (torch.randperm(90).float(),)]


def probe_inputs():
    return other_inputs()
