"""A model inverts a matrix with torch.inverse, multiplies by the inverted matrix, and also needs torch.svd;
the Core ML converter has neither op (a custom matrixinv op fails at the matmul that uses the inverted matrix),
and the reporter asks for basic linear-algebra routines.

Source: https://github.com/apple/coremltools/issues/1543
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}, "test": {0: "batch"}}
BLIND = "operators-22"


class InvertAndDecompose(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x, test):
        inv = torch.inverse(test)
        y = torch.matmul(inv, self.proj(x))
        u, s, v = torch.svd(y)
        return y, s


def make_model():
    return InvertAndDecompose().eval()


def _inputs(b):
    return (torch.randn(b, 3, 3), torch.randn(b, 3, 3) + 3.0 * torch.eye(3))


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(4), _inputs(1)]


def probe_inputs():
    return other_inputs()
