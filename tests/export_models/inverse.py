"""A Gram-matrix inverse: aten.linalg_inv has no ONNX translation in either exporter."""

import torch
from torch import nn


class Whiten(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.lin(x)
        gram = h.T @ h + 4 * torch.eye(4)
        return h @ torch.linalg.inv(gram)


def example_inputs():
    return (torch.randn(6, 4),)
