"""A transformer feed-forward block cast to bfloat16 (`model.to(torch.bfloat16)`, as LLM users
ship them): both exporters write bfloat16 graphs, and onnxruntime's CPU provider has no bfloat16
kernel for most of their ops; the output is bfloat16 too (numpy has no such type)."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.up = nn.Linear(hidden, 4 * hidden)
        self.down = nn.Linear(4 * hidden, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h):
        return self.norm(h + self.down(nn.functional.gelu(self.up(h))))


def make_model():
    torch.manual_seed(0)
    return Block().to(torch.bfloat16)


def example_inputs():
    return (torch.randn(2, 5, 16).to(torch.bfloat16),)
