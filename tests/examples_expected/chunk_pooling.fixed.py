"""A pooling head that splits a sequence into a requested number of chunks.

The chunk count and the temperature arrive as tensors (as they do when a model is driven by
another model's outputs). `.item()` turns them into Python numbers, which the legacy exporter
records as constants.
"""

import torch
from torch import nn


class ChunkPooling(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def pool(self, x: torch.Tensor, num_chunks: torch.Tensor) -> torch.Tensor:
        batch = x.shape[0]
        chunks = x.reshape(batch, num_chunks, -1, x.shape[-1])
        weights = torch.softmax(self.score(chunks), dim=2)
        return (chunks * weights).sum(dim=2)

    def forward(self, x: torch.Tensor, num_chunks: torch.Tensor, temperature: torch.Tensor) -> torch.Tensor:
        pooled = self.pool(x, num_chunks)
        return pooled / temperature


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return ChunkPooling().eval()


def example_inputs():
    return (torch.randn(2, 12, 8), torch.tensor(3), torch.tensor(0.5))


def probe_inputs():
    return [
        (torch.randn(2, 12, 8), torch.tensor(4), torch.tensor(2.0)),
        (torch.randn(3, 12, 8), torch.tensor(2), torch.tensor(0.25)),
    ]


DYNAMIC = {0: {0: "batch"}}
