"""Scatter-mean built by hand from `scatter_add_` and `Tensor.scatter_(dim, index, src,
reduce='multiply')` (because scatter_reduce mean did not export); export fails with "A mismatch
between the number of arguments (5) and their descriptors (4) was found at symbolic function
'scatter'".

Source: https://github.com/pytorch/pytorch/issues/86684
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}, "index": {0: "batch"}, "ratio": {0: "batch"}}
BLIND = "operators-1"


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x, index, ratio):
        index = index.unsqueeze(-1).expand_as(x)
        y_sum = torch.zeros_like(x).scatter_add_(1, index, x)
        y_mean = y_sum.scatter_(1, index, ratio, reduce='multiply')
        return y_mean


def make_model():
    return Model()


def _inputs(b):
    index = torch.randint(0, 4, (b, 6))
    return (torch.randn(b, 6, 3), index, torch.rand(b, 6, 3))


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(5), _inputs(1)]


def probe_inputs():
    return other_inputs()
