"""ONX402 `math.sqrt` of a dynamic size: a sum pooled over the tokens and scaled by
`1 / math.sqrt(x.shape[1])` (the "sqrt-n" pooling of sentence encoders and speaker embeddings).
torch.export turns `math.sqrt` of the SymInt into torch._sym_sqrt, which torch.onnx cannot
translate; the legacy exporter records the export-time scale. Fixed (safe) by
`_onnx_size_sqrt(math.sqrt, x.shape[1])`: `math.sqrt` in eager, `n ** 0.5` under torch.export;
the legacy trace keeps its constant."""
import math

import torch
from torch import nn


class SqrtNPooling(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        pooled = self.proj(x).sum(dim=1) / math.sqrt(x.shape[1])
        return torch.tanh(pooled)


def make_model():
    torch.manual_seed(0)
    return SqrtNPooling()


def example_inputs():
    return (torch.randn(2, 9, 8),)


def probe_inputs():
    return [(torch.randn(1, 5, 8),), (torch.randn(3, 17, 8),)]


DYNAMIC = {0: {0: "batch", 1: "tokens"}}
