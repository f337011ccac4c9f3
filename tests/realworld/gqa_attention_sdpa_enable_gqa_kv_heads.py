"""A grouped-query attention block passes fewer key/value heads than query heads straight to
`F.scaled_dot_product_attention(..., enable_gqa=True)`; the report says ONNX export fails when
`enable_gqa` is used (documented limitation) and asks for GQA support in the exporter.

Source: https://github.com/pytorch/pytorch/issues/151762
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-14"


class GroupedQueryAttention(nn.Module):
    def __init__(self, dim=64, n_heads=8, n_kv_heads=2):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.head_dim = dim // n_heads
        self.q_proj = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x):
        bsz, seqlen, _ = x.shape
        q = self.q_proj(x).view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim).transpose(1, 2)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        out = out.transpose(1, 2).reshape(bsz, seqlen, -1)
        return self.o_proj(out)


def make_model():
    return GroupedQueryAttention()


def example_inputs():
    return (torch.randn(2, 10, 64),)


def other_inputs():
    return [(torch.randn(3, 17, 64),), (torch.randn(1, 5, 64),)]


def probe_inputs():
    return other_inputs()
