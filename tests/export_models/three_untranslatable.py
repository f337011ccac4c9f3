"""Three operators the dynamo exporter has no ONNX translation for, in one forward: it stops at
the first (cholesky_solve). `onnxfix export` lists all three, each at its line; linalg.inv has
an onnxfix decomposition."""

import torch
from torch import nn


class Solver(nn.Module):
    def forward(self, x: torch.Tensor, b: torch.Tensor):
        gram = x @ x.transpose(-1, -2) + 4 * torch.eye(4)
        y = torch.cholesky_solve(b, torch.tril(gram))
        freqs = torch.fft.rfftfreq(x.shape[-1] * 2)
        return torch.linalg.inv(gram) @ y, freqs


def example_inputs():
    return torch.randn(4, 4), torch.randn(4, 2)
