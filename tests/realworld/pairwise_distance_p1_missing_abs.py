"""A module wrapping torch.nn.functional.pairwise_distance(x1, x2, p=1.0) (L1 distance between paired embeddings);
the report finds the converted graph computes sum((x1 - x2)^p)^(1/p) without the Abs, so every p != 2 comes out
wrong or NaN (p=2 hides it because d^2 == |d|^2).

Source: https://github.com/openvinotoolkit/openvino/issues/38239
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x1": {0: "batch"}, "x2": {0: "batch"}}
BLIND = "operators-34"


class PairwiseDistanceModel(nn.Module):
    def __init__(self, p=1.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.p = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return torch.nn.functional.pairwise_distance(x1, x2, p=self.p, eps=self.eps, keepdim=self.keepdim)


def make_model():
    return PairwiseDistanceModel()


def example_inputs():
    return (torch.randn(4, 16), torch.randn(4, 16))


def other_inputs():
    return [(torch.randn(7, 16), torch.randn(7, 16)), (torch.randn(1, 16), torch.randn(1, 16))]


def probe_inputs():
    return other_inputs()
