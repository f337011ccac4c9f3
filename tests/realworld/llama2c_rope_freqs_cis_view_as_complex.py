"""llama2.c's Llama-2 attention applies RoPE through complex numbers: `freqs_cis` is precomputed with
`torch.polar` (complex64 buffer) and `apply_rotary_emb` uses `torch.view_as_complex` / `view_as_real`;
the PR removing complex64 says this blocked ONNX export (complex ops/dtypes not exportable).

Source: https://github.com/karpathy/llama2.c/pull/103
"""
import math
from typing import Tuple

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"tokens": {0: "batch", 1: "seqlen"}}
BLIND = "operators-14"


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)  # type: ignore
    freqs = torch.outer(t, freqs).float()  # type: ignore
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
    return freqs_cis


def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor):
    ndim = x.ndim
    assert 0 <= 1 < ndim
    assert freqs_cis.shape == (x.shape[1], x.shape[-1])
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(
    xq: torch.Tensor,
    xk: torch.Tensor,
    freqs_cis: torch.Tensor,
) -> Tuple[torch.Tensor, torch.Tensor]:
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_local_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x: torch.Tensor, freqs_cis: torch.Tensor):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_heads, self.head_dim)

        # RoPE relative positional embeddings
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis)

        xq = xq.transpose(1, 2)
        xk = xk.transpose(1, 2)
        xv = xv.transpose(1, 2)
        output = torch.nn.functional.scaled_dot_product_attention(xq, xk, xv, attn_mask=None, dropout_p=0, is_causal=True)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class Transformer(nn.Module):
    def __init__(self, vocab_size=64, dim=32, n_heads=4, max_seq_len=64):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.attention = Attention(dim, n_heads)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        freqs_cis = precompute_freqs_cis(dim // n_heads, max_seq_len * 2)
        self.register_buffer("freqs_cis", freqs_cis, persistent=False)

    def forward(self, tokens):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[:seqlen]
        h = h + self.attention(h, freqs_cis)
        return self.output(h)


def make_model():
    return Transformer()


def example_inputs():
    return (torch.randint(0, 64, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 64, (3, 20)),), (torch.randint(0, 64, (1, 7)),)]


def probe_inputs():
    return other_inputs()
