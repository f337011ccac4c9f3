"""A pairwise-distance model calls the aten op directly, torch.ops.aten._cdist_forward(x, y, p=2.0,
compute_mode=0); eager accepts compute_mode 0, but the report finds exporting it fails ("possible modes: None, 1, 2,
but was: 0") while None/1/2 export.

Source: https://github.com/pytorch/pytorch/issues/161089
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "n"}, "y": {0: "m"}}
BLIND = "operators-16"


class CDistModel(nn.Module):
    def __init__(self, compute_mode=0):
        super(CDistModel, self).__init__()
        self.compute_mode = compute_mode

    def forward(self, x, y):
        return torch.ops.aten._cdist_forward(x, y, p=2.0, compute_mode=self.compute_mode)


def make_model():
    return CDistModel()


def example_inputs():
    return (torch.ones([3, 3]), torch.ones([3, 3]))


def other_inputs():
    return [(torch.randn(5, 3), torch.randn(2, 3)), (torch.randn(2, 3), torch.randn(7, 3))]


def probe_inputs():
    return other_inputs()
