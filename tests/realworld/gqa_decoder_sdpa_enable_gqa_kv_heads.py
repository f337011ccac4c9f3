"""Grouped-query self-attention of a decoder LLM block (8 query heads sharing 2 key/value heads) that
calls `F.scaled_dot_product_attention(..., is_causal=True, enable_gqa=True)` instead of repeating K/V.
The `enable_gqa` argument added in torch 2.5 broke export; the exporter's conversion only asserts
"conversion of scaled_dot_product_attention not implemented if enable_gqa is True".

Source: https://github.com/microsoft/onnxscript/pull/1800
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "operators-62"


class GQAAttention(nn.Module):
    def __init__(self, hidden_size=64, num_heads=8, num_kv_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * self.head_dim, hidden_size, bias=False)

    def forward(self, hidden_states):
        bsz, q_len, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, q_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        attn_output = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(attn_output)


def make_model():
    return GQAAttention().eval()


def example_inputs():
    return (torch.randn(2, 10, 64),)


def other_inputs():
    return [(torch.randn(3, 17, 64),), (torch.randn(1, 5, 64),)]


def probe_inputs():
    return other_inputs()
