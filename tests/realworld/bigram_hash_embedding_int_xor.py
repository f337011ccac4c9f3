"""Bigram hash embedding that combines neighbouring int64 token ids with `^`; the PR enabling
`__xor_` export only maps it to the boolean ONNX Xor, and the review points out that integer
operands (`tensor([12]) ^ tensor([10]) == 6`) are not handled, so int XOR does not export.

Source: https://github.com/pytorch/pytorch/pull/64042
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"ids": {0: "batch", 1: "length"}}
BLIND = "operators-36"


class BigramHashEmbedding(nn.Module):
    def __init__(self, buckets=97, dim=16):
        super().__init__()
        self.buckets = buckets
        self.embed = nn.Embedding(buckets, dim)

    def forward(self, ids):
        prev = torch.cat([torch.zeros_like(ids[:, :1]), ids[:, :-1]], dim=1)
        h = (ids * 31) ^ prev            # integer bitwise xor
        return self.embed(h % self.buckets)


def make_model():
    return BigramHashEmbedding()


def example_inputs():
    return (torch.randint(0, 1000, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 1000, (3, 20)),), (torch.randint(0, 1000, (1, 5)),)]


def probe_inputs():
    return other_inputs()
