"""Speech/NMT transformer decoder (ESPnet-style `subsequent_mask` / `target_mask`): the causal mask is built as
`ret = torch.ones(size, size, device=device, dtype=dtype)` with the default dtype=torch.uint8, then
`torch.tril(ret, out=ret)`; the report hits "KeyError: 'tril'" in torch.onnx.export (there is
`torch.tril(ret, out=ret)` in code). On torch 2.13 tril exports as ONNX Trilu on a uint8 tensor, which
onnxruntime has no kernel for, so the exported decoder cannot be loaded.

Source: https://github.com/pytorch/pytorch/issues/34129
"""
import math

import numpy
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"ys_in_pad": {0: "batch", 1: "olength"}}
BLIND = "operators-24"

MIN_VALUE = float(numpy.finfo(numpy.float32).min)


def subsequent_mask(size, device="cpu", dtype=torch.uint8):
    """Create mask for subsequent steps (size, size).

    >>> subsequent_mask(3)
    [[1, 0, 0],
     [1, 1, 0],
     [1, 1, 1]]
    """
    ret = torch.ones(size, size, device=device, dtype=dtype)
    return torch.tril(ret, out=ret)


def target_mask(ys_in_pad, ignore_id):
    """Create mask for decoder self-attention."""
    ys_mask = ys_in_pad != ignore_id
    m = subsequent_mask(ys_mask.size(-1), device=ys_mask.device).unsqueeze(0)
    return ys_mask.unsqueeze(-2) & m


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat):
        super().__init__()
        self.d_k = n_feat // n_head
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)

    def forward(self, query, key, value, mask):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        mask = mask.unsqueeze(1).eq(0)  # (batch, 1, time1, time2)
        scores = scores.masked_fill(mask, MIN_VALUE)
        attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        x = torch.matmul(attn, v).transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k)
        return self.linear_out(x)


class Decoder(nn.Module):
    def __init__(self, odim=40, adim=32, aheads=4, ignore_id=-1):
        super().__init__()
        self.ignore_id = ignore_id
        self.embed = nn.Embedding(odim, adim)
        self.self_attn = MultiHeadedAttention(aheads, adim)
        self.norm = nn.LayerNorm(adim)
        self.output_layer = nn.Linear(adim, odim)

    def forward(self, ys_in_pad):
        tgt_mask = target_mask(ys_in_pad, self.ignore_id)
        x = self.embed(ys_in_pad.masked_fill(ys_in_pad == self.ignore_id, 0))
        x = x + self.self_attn(self.norm(x), self.norm(x), self.norm(x), tgt_mask)
        return self.output_layer(x)


def make_model():
    return Decoder().eval()


def example_inputs():
    return (torch.randint(0, 40, (2, 6)),)


def other_inputs():
    a = torch.randint(0, 40, (3, 9))
    a[1, 5:] = -1
    return [(a,), (torch.randint(0, 40, (1, 4)),)]


def probe_inputs():
    return other_inputs()
