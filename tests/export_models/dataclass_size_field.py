"""A decoder returning a dataclass with its KV cache and the cache's length as a Python int
(x-transformers' LayerIntermediates, `cache_length=k.shape[-2]`): neither exporter flattens the
class; flattened at the boundary, the legacy tracer turns the length into a tensor, one output
more than eager has. The repair keeps the leaves that are tensors in eager."""
from dataclasses import dataclass
from typing import Optional

import torch
from torch import nn


@dataclass
class Intermediates:
    cached_kv: Optional[list] = None
    cache_length: int = 0


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.kv = nn.Linear(4, 8)

    def forward(self, x):
        k, v = self.kv(x).chunk(2, dim=-1)
        return x.sum(-1), Intermediates(cached_kv=[k, v], cache_length=k.shape[-2])


def make_model():
    torch.manual_seed(0)
    return Decoder()


def example_inputs():
    return (torch.randn(2, 5, 4),)


def probe_inputs():
    return [(torch.randn(3, 7, 4),)]
