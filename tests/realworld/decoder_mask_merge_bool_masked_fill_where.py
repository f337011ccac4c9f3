"""Decoder self-attention that merges its boolean causal mask with the key-padding mask by calling
`masked_fill(..., True)` on the bool causal mask, then masks the scores. torchlib lowers `masked_fill` to
ONNX Where with the bool mask as X/Y, and the PR enabling bool tests records the xfail "ORT does not have
an implementation for Where with bool inputs" (masked_fill and where on torch.bool); onnxruntime fails
with "NOT_IMPLEMENTED : Could not find an implementation for Where".

Source: https://github.com/microsoft/onnxscript/pull/932
"""
import math

import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}, "lengths": {0: "batch"}}
BLIND = "operators-43"


class MaskedSelfAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        b, t, d = x.shape
        pos = torch.arange(t, device=x.device)
        key_padding = pos.unsqueeze(0) >= lengths.unsqueeze(1)                   # (B, T) bool, True = pad
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)     # (T, T) bool, True = future
        mask = causal.unsqueeze(0).masked_fill(key_padding.unsqueeze(1), True)   # (B, T, T) bool
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(mask.unsqueeze(1), float("-inf"))
        attn = scores.softmax(dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(b, t, d)
        return self.out(y)


def make_model():
    return MaskedSelfAttention().eval()


def example_inputs():
    return (torch.randn(2, 10, 32), torch.tensor([10, 6]))


def other_inputs():
    return [(torch.randn(3, 16, 32), torch.tensor([16, 3, 9])), (torch.randn(1, 5, 32), torch.tensor([4]))]


def probe_inputs():
    return other_inputs()
