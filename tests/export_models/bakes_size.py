"""Splits a sequence into a number of chunks that arrives as a tensor.

`.item()` as a size: the legacy exporter records the example's chunk count as a constant.
"""

import torch
from torch import nn


class ChunkMean(nn.Module):
    def forward(self, x: torch.Tensor, chunks: torch.Tensor) -> torch.Tensor:
        pieces = x.reshape(x.shape[0], chunks.item(), -1)
        return pieces.mean(dim=-1)


def example_inputs():
    return (torch.randn(2, 12), torch.tensor(3))


def probe_inputs():
    return [(torch.randn(2, 12), torch.tensor(4))]
