"""Self-attention over a sequence padded to a multiple of a block size, with a position bias.

The padded length is computed from `x.shape` and then adjusted in place (`+=`), the pattern
the torch.onnx docs warn about: under the legacy exporter the in-place add mutates the traced
size itself, so the exported model is wrong even on the inputs it was exported with.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PaddedAttention(nn.Module):
    def __init__(self, dim: int = 8, block: int = 4):
        super().__init__()
        self.block = block
        self.qkv = nn.Linear(dim, 3 * dim)

    def padding_for(self, length: int) -> int:
        return (self.block - length % self.block) % self.block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length = x.shape[:2]
        padded = length
        padded = padded + self.padding_for(length)
        x = F.pad(x, (0, 0, 0, padded - length))
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        bias = torch.arange(padded, dtype=x.dtype) / padded
        scores = q @ k.transpose(1, 2) + bias
        out = torch.softmax(scores, dim=-1) @ v
        return out[:, :length]


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return PaddedAttention().eval()


def example_inputs():
    return (torch.randn(2, 6, 8),)


def probe_inputs():
    return [(torch.randn(2, 6, 8) * 2,), (torch.randn(3, 9, 8),)]


DYNAMIC = {0: {0: "batch", 1: "seq"}}
