"""Llama 4 text attention: the rotary embedding builds freqs_cis with torch.polar (complex64) and
apply_rotary_emb rotates q/k through torch.view_as_complex / torch.view_as_real. The report asks for
torch.polar, view_as_complex and view_as_real support because this RoPE could not be lowered (a
workaround rewrote it with cos/sin); the legacy ONNX exporter stops on aten::polar.

Source: https://github.com/pytorch/xla/issues/9215
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "operators-37"


class Llama4TextRotaryEmbedding(nn.Module):
    def __init__(self, head_dim=16, rope_theta=500000.0):
        super().__init__()
        inv_freq = 1.0 / (rope_theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.to(x.device) @ position_ids_expanded.float()).transpose(1, 2)
        freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # Convert to complex representation
        freqs_cis = freqs_cis * self.attention_scaling
        return freqs_cis


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    xq_out = torch.view_as_real(xq_ * freqs_cis[:, :, None, :]).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis[:, :, None, :]).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


class Llama4TextAttention(nn.Module):
    def __init__(self, hidden_size=64, num_heads=4):
        super().__init__()
        self.head_dim = hidden_size // num_heads
        self.num_heads = num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.rotary_emb = Llama4TextRotaryEmbedding(self.head_dim)

    def forward(self, hidden_states, position_ids):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape)
        key_states = self.k_proj(hidden_states).view(*input_shape, -1, self.head_dim)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        freqs_cis = self.rotary_emb(hidden_states, position_ids)
        query_states, key_states = apply_rotary_emb(query_states, key_states, freqs_cis)
        query_states = query_states.transpose(1, 2)
        key_states = key_states.transpose(1, 2)
        attn_output = F.scaled_dot_product_attention(query_states, key_states, value_states, is_causal=True)
        attn_output = attn_output.transpose(1, 2).reshape(*input_shape, -1)
        return self.o_proj(attn_output)


def make_model():
    return Llama4TextAttention()


def example_inputs():
    return (torch.randn(2, 12, 64), torch.arange(12).unsqueeze(0).expand(2, -1))


def other_inputs():
    return [
        (torch.randn(3, 20, 64), torch.arange(20).unsqueeze(0).expand(3, -1)),
        (torch.randn(1, 7, 64), torch.arange(7).unsqueeze(0)),
    ]


def probe_inputs():
    return other_inputs()
