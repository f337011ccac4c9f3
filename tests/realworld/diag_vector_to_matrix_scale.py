"""A layer that turns a learned (or predicted) per-feature gain vector into a diagonal matrix with
`torch.diag` and applies it with a matmul. The report: a PyTorch model using `torch.diag` cannot be
converted because there is no ONNX Diag operator and no exporter mapping ("missing diag operator");
the TorchScript exporter on torch 2.13 still stops with "Exporting the operator 'aten::diag' ... is
not supported".

Source: https://github.com/onnx/onnx/issues/2512
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-35"


class DiagScale(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.gain = nn.Parameter(torch.randn(dim))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        d = torch.diag(torch.sigmoid(self.gain))
        return self.proj(torch.matmul(x, d))


def make_model():
    return DiagScale()


def example_inputs():
    return (torch.randn(4, 16),)


def other_inputs():
    return [(torch.randn(7, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
