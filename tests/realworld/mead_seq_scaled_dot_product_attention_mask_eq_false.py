"""mead-baseline (eight_mile) transformer self-attention masks its scores with
`scores.masked_fill(mask == MASK_FALSE, -1e9)` where `MASK_FALSE = False` and the mask is a bool padding
mask; the PR says recent PyTorch (after 1.7.1) no longer exports this boolean comparison to ONNX
(aten::eq with a Python bool), and the fix switched MASK_FALSE to the int 0.

Source: https://github.com/mead-ml/mead-baseline/pull/929
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-26"

MASK_FALSE = False


class SeqScaledDotProductAttention(nn.Module):
    def __init__(self, pdrop: float = 0.1):
        super().__init__()
        self.dropout = nn.Dropout(pdrop)

    def _attention(self, query, key, mask=None):
        # (., H, T_q, T_k) = (., H, T_q, D) x (., H, D, T_k)
        d_k = query.size(-1)
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == MASK_FALSE, -1e9)  # [B, 1, 1, T_k] broadcast to [B, 1, T_q, T_k]
        return F.softmax(scores, dim=-1)

    def forward(self, qkvm):
        query, key, value, mask = qkvm
        a = self._attention(query, key, mask)
        a = self.dropout(a)
        return torch.matmul(a, value)


class MultiHeadedAttention(nn.Module):
    def __init__(self, num_heads: int, d_model: int):
        super().__init__()
        self.d_k = d_model // num_heads
        self.h = num_heads
        self.w_Q = nn.Linear(d_model, d_model)
        self.w_K = nn.Linear(d_model, d_model)
        self.w_V = nn.Linear(d_model, d_model)
        self.w_O = nn.Linear(d_model, d_model)
        self.attn_fn = SeqScaledDotProductAttention()

    def forward(self, qkvm):
        query, key, value, mask = qkvm
        batchsz = query.size(0)
        query = self.w_Q(query).view(batchsz, -1, self.h, self.d_k).transpose(1, 2)
        key = self.w_K(key).view(batchsz, -1, self.h, self.d_k).transpose(1, 2)
        value = self.w_V(value).view(batchsz, -1, self.h, self.d_k).transpose(1, 2)
        x = self.attn_fn((query, key, value, mask))
        x = x.transpose(1, 2).contiguous().view(batchsz, -1, self.h * self.d_k)
        return self.w_O(x)


class TransformerTagger(nn.Module):
    def __init__(self, vocab=100, d_model=32, num_heads=4, nlabels=9):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.self_attn = MultiHeadedAttention(num_heads, d_model)
        self.ln = nn.LayerNorm(d_model)
        self.proj = nn.Linear(d_model, nlabels)

    def forward(self, x):
        mask = (x != 0).unsqueeze(1).unsqueeze(1)
        h = self.embed(x)
        h = self.ln(h + self.self_attn((h, h, h, mask)))
        return self.proj(h)


def make_model():
    return TransformerTagger().eval()


def _tokens(b, t):
    x = torch.randint(1, 100, (b, t))
    x[0, t - 2:] = 0  # padded tail on the first sequence
    return x


def example_inputs():
    return (_tokens(2, 12),)


def other_inputs():
    return [(_tokens(3, 17),), (_tokens(1, 6),)]


def probe_inputs():
    return other_inputs()
