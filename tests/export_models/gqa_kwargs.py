"""Grouped-query attention whose `enable_gqa=True` reaches F.scaled_dot_product_attention through
`**kwargs` (transformers' sdpa_attention_forward does so): the legacy exporter fails on it, no
static rule can see the keyword, and the run both names and proves the decomposition."""

import torch
from torch import nn


def attend(q, k, v, **kwargs):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.kv = nn.Linear(16, 16)
        self.grouped = True

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, 4, 4).transpose(1, 2)
        k, v = self.kv(x).view(b, n, 4, 4).transpose(1, 2).chunk(2, dim=1)
        extra = {"enable_gqa": True} if self.grouped else {}
        return attend(q, k, v, is_causal=True, **extra)


def make_model():
    torch.manual_seed(0)
    return Block()


def example_inputs():
    return (torch.randn(2, 5, 16),)
