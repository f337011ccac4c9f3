"""Model solving a small linear system per sample with `torch.linalg.solve`; "Unsupported Operator
'aten::linalg_solve'" (no ONNX matrix inverse).

Source: https://github.com/pytorch/pytorch/issues/133052
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"A": {0: "batch"}, "b": {0: "batch"}}


class Solve(nn.Module):
    def forward(self, A, b):
        return torch.linalg.solve(A, b)


def _a(n):
    return torch.randn(n, 4, 4) + 4 * torch.eye(4)


def make_model():
    return Solve()


def example_inputs():
    return (_a(2), torch.randn(2, 4, 1))


def other_inputs():
    return [(_a(5), torch.randn(5, 4, 1)), (_a(1), torch.randn(1, 4, 1))]


def probe_inputs():
    return other_inputs()
