"""ONX609, the grown cache: fairseq's sinusoidal positions keep their table on the module and
rebuild it in forward only when the input outgrows it. Exported at a length the table covers,
both exporters keep the table as a constant, and longer inputs fail in onnxruntime. Fixed safely:
the table is rebuilt under export (eager keeps its cache)."""
import math

import torch
from torch import nn


def sinusoidal_table(num_embeddings: int, dim: int) -> torch.Tensor:
    half = dim // 2
    freq = torch.exp(torch.arange(half, dtype=torch.float) * -(math.log(10000) / (half - 1)))
    angles = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * freq.unsqueeze(0)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)


class Positions(nn.Module):
    def __init__(self, dim=8, init_size=6):
        super().__init__()
        self.dim = dim
        self.weights = sinusoidal_table(init_size, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.weights.size(0):
            self.weights = sinusoidal_table(seq_len, self.dim)
        return self.proj(x + self.weights[:seq_len])


def make_model():
    torch.manual_seed(0)
    return Positions()


def example_inputs():
    return (torch.randn(2, 4, 8),)


def probe_inputs():
    return [(torch.randn(3, 9, 8),), (torch.randn(1, 3, 8),)]


DYNAMIC = {0: {0: "batch", 1: "seq"}}
