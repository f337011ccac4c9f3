"""Decoder-only x-transformers model with KV caching (TransformerWrapper(..., return_intermediates=True)): forward
returns the logits together with the cache, a `LayerIntermediates` dataclass holding a list of per-layer
`Intermediates` dataclasses with `cached_kv`. The user could not convert the model to ONNX "since the cache is a python
dataclass". Reduced to one causal attention + feed-forward layer written in the library's style.

Source: https://github.com/lucidrains/x-transformers/issues/343
"""
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch import nn, Tensor

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "domains-14"


@dataclass
class Intermediates:
    qk_similarities: Optional[Tensor] = None
    pre_softmax_attn: Optional[Tensor] = None
    post_softmax_attn: Optional[Tensor] = None
    cached_kv: Optional[Tuple[Tensor, Tensor]] = None


@dataclass
class LayerIntermediates:
    hiddens: Optional[List[Tensor]] = None
    last_hidden: Optional[Tensor] = None
    attn_intermediates: Optional[List[Intermediates]] = None
    cache_length: int = 0


def exists(val):
    return val is not None


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=8):
        super().__init__()
        self.heads = heads
        self.scale = dim_head ** -0.5
        self.to_q = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_k = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_v = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_out = nn.Linear(heads * dim_head, dim, bias=False)

    def forward(self, x, cache: Optional[Intermediates] = None):
        b, n, _ = x.shape
        h = self.heads
        q, k, v = (t(x).view(b, n, h, -1).transpose(1, 2) for t in (self.to_q, self.to_k, self.to_v))
        if exists(cache):
            ck, cv = cache.cached_kv
            k = torch.cat((ck, k), dim=-2)
            v = torch.cat((cv, v), dim=-2)
        cached_kv = (k, v)
        dots = (q @ k.transpose(-1, -2)) * self.scale
        i, j = dots.shape[-2:]
        causal_mask = torch.ones((i, j), dtype=torch.bool, device=x.device).triu(j - i + 1)
        dots = dots.masked_fill(causal_mask, -torch.finfo(dots.dtype).max)
        attn = dots.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, -1)
        intermediates = Intermediates(pre_softmax_attn=dots, post_softmax_attn=attn, cached_kv=cached_kv)
        return self.to_out(out), intermediates


class Decoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))
        self.final_norm = nn.LayerNorm(dim)

    def forward(self, x, cache: Optional[LayerIntermediates] = None, return_hiddens=False):
        attn_cache = cache.attn_intermediates[0] if exists(cache) else None
        hiddens = [x]
        out, inter = self.attn(self.norm1(x), cache=attn_cache)
        x = x + out
        x = x + self.ff(self.norm2(x))
        hiddens.append(x)
        x = self.final_norm(x)
        if not return_hiddens:
            return x
        intermediates = LayerIntermediates(
            hiddens=hiddens, last_hidden=x, attn_intermediates=[inter],
            cache_length=inter.cached_kv[0].shape[-2])
        return x, intermediates


class TransformerWrapper(nn.Module):
    def __init__(self, num_tokens=256, max_seq_len=64, dim=32):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.pos_emb = nn.Embedding(max_seq_len, dim)
        self.attn_layers = Decoder(dim)
        self.to_logits = nn.Linear(dim, num_tokens, bias=False)

    def forward(self, x, return_intermediates=False, cache: Optional[LayerIntermediates] = None):
        b, n = x.shape
        offset = cache.cache_length if exists(cache) else 0
        pos = torch.arange(offset, offset + n, device=x.device)
        x = self.token_emb(x) + self.pos_emb(pos)
        x, intermediates = self.attn_layers(x, cache=cache, return_hiddens=True)
        logits = self.to_logits(x)
        if return_intermediates:
            return logits, intermediates
        return logits


class DecoderOnlyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = TransformerWrapper()

    def forward(self, x):
        logits, cache = self.lm(x, return_intermediates=True)
        return logits, cache


def make_model():
    return DecoderOnlyModel().eval()


def example_inputs():
    return (torch.randint(0, 256, (2, 10)),)


def other_inputs():
    return [(torch.randint(0, 256, (3, 17)),), (torch.randint(0, 256, (1, 6)),)]


def probe_inputs():
    return other_inputs()
