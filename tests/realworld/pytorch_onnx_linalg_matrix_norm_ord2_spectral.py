"""The PR that added ONNX export for `torch.linalg.norm/vector_norm/matrix_norm` left the
spectral orders out: `torch.linalg.matrix_norm(x, ord=2)` (and -2 / 'nuc') raise
"Unsupported: ONNX export of operator linalg.matrix_norm, ord==2" because ONNX has no operator
to compute singular values. Modelled on the PR's LinalgMatrixNormModel test (x of shape (2, 3, 5, 5)),
with a small head on the per-block spectral norms.

Source: https://github.com/pytorch/pytorch/pull/66575
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-63"


class LinalgMatrixNormModel(nn.Module):
    def __init__(self, ord=2, dim=(-2, -1), keepdim=False):
        super().__init__()
        self.ord = ord
        self.dim = dim
        self.keepdim = keepdim
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        # x: (batch, 3, 5, 5) -> spectral norm of every 5x5 block
        norms = torch.linalg.matrix_norm(x, ord=self.ord, dim=self.dim, keepdim=self.keepdim)
        return self.head(norms)


def make_model():
    return LinalgMatrixNormModel(2)


def example_inputs():
    return (torch.randn(2, 3, 5, 5),)


def other_inputs():
    return [(torch.randn(4, 3, 5, 5),), (torch.randn(1, 3, 5, 5),)]


def probe_inputs():
    return other_inputs()
