"""Qwen3-style grouped-query attention (8 query heads sharing 2 key/value heads, scaled down) through
transformers' sdpa_attention_forward, which skips repeat_kv and calls
`scaled_dot_product_attention(..., is_causal=is_causal, enable_gqa=True)` when there is no
attention mask; the TorchScript exporter stops in the sdpa symbolic on the enable_gqa argument.

Source: https://github.com/pytorch/pytorch/issues/162258
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq_len"}}
BLIND = "operators-2"


class Qwen3RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None):
    sdpa_kwargs = {}
    if hasattr(module, "num_key_value_groups"):
        # use_gqa_in_sdpa(attention_mask, key): torch >= 2.5 and attention_mask is None
        sdpa_kwargs = {"enable_gqa": True}
    is_causal = query.shape[2] > 1 and attention_mask is None and getattr(module, "is_causal", True)
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, dropout_p=dropout, scale=scaling,
        is_causal=is_causal, **sdpa_kwargs,
    )
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


class Qwen3Attention(nn.Module):
    def __init__(self, hidden_size=256, num_attention_heads=8, num_key_value_heads=2, head_dim=32):
        super().__init__()
        self.head_dim = head_dim
        self.num_key_value_groups = num_attention_heads // num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        self.is_causal = True
        self.q_proj = nn.Linear(hidden_size, num_attention_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_key_value_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_key_value_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_attention_heads * head_dim, hidden_size, bias=False)
        self.q_norm = Qwen3RMSNorm(head_dim)
        self.k_norm = Qwen3RMSNorm(head_dim)

    def forward(self, hidden_states):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)

        query_states = self.q_norm(self.q_proj(hidden_states).view(hidden_shape)).transpose(1, 2)
        key_states = self.k_norm(self.k_proj(hidden_states).view(hidden_shape)).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        attn_output, attn_weights = sdpa_attention_forward(
            self, query_states, key_states, value_states, None, dropout=0.0, scaling=self.scaling,
        )
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


def make_model():
    return Qwen3Attention()


def example_inputs():
    return (torch.randn(2, 16, 256),)


def other_inputs():
    return [(torch.randn(1, 37, 256),), (torch.randn(3, 9, 256),)]


def probe_inputs():
    return other_inputs()
