"""Token positions counted with `torch.cumsum` over a boolean padding mask; the ONNX CumSum op
does not accept bool, so the exported graph is rejected by onnxruntime ("Type 'tensor(bool)' of
input parameter ... of operator (CumSum) is invalid") unless the exporter casts before the cumsum
(the PR says the Cast was placed after CumSum instead of before; the code before the fix is the case).

Source: https://github.com/pytorch/pytorch/pull/40044
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"tokens": {0: "batch", 1: "length"}}
BLIND = "operators-36"


class MaskedPositionEmbedding(nn.Module):
    def __init__(self, num_embeddings=64, dim=16, padding_idx=0):
        super().__init__()
        self.padding_idx = padding_idx
        self.embed = nn.Embedding(num_embeddings, dim)

    def forward(self, tokens):
        mask = tokens.ne(self.padding_idx)            # bool
        positions = torch.cumsum(mask, dim=1) * mask  # cumsum over a bool tensor
        return self.embed(positions)


def make_model():
    return MaskedPositionEmbedding()


def _tokens(b, t):
    x = torch.randint(1, 50, (b, t))
    x[0, t // 2:] = 0
    return x


def example_inputs():
    return (_tokens(2, 12),)


def other_inputs():
    return [(_tokens(3, 20),), (_tokens(1, 7),)]


def probe_inputs():
    return other_inputs()
