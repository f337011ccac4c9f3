"""ONX532: GPyTorch-style `chol.mT`, `.mH` and `.adjoint()` (no legacy symbolic for aten::mT / aten::mH)."""
import torch
from torch import nn


class Whiten(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor):
        gram = a.mT @ a + torch.eye(a.shape[-1])
        row = b.adjoint().sum(-1, keepdim=True)
        column = row.mT
        return gram @ b.mH + column.mT


def make_model():
    return Whiten()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 5, 3), torch.randn(2, 4, 3))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 6, 3), torch.randn(3, 2, 3)), (torch.randn(1, 5, 3), torch.randn(1, 7, 3))]


DYNAMIC = {0: {0: "batch", 1: "rows"}, 1: {0: "batch", 1: "cols"}}
