"""A Hugging Face Llama-style decoder layer run with attn_implementation="flex_attention" (the
transformers `flex_attention_forward`: the 4-D causal/padding mask is added inside a `score_mod`
closure, GQA via enable_gqa, return_lse=True). The report: models using FlexAttention cannot be exported to ONNX, as there is no ONNX counterpart of
torch.nn.attention.flex_attention (the exporters cannot lower the flex_attention higher-order op).

Source: https://github.com/onnx/onnx/issues/7494
"""
import torch
from torch import nn
from torch.nn.attention.flex_attention import flex_attention

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "operators-10"


def flex_attention_forward(module, query, key, value, attention_mask, scaling=None, softcap=None, **kwargs):
    causal_mask = attention_mask
    if causal_mask is not None:
        causal_mask = causal_mask[:, :, :, : key.shape[-2]]

    def score_mod(score, batch_idx, head_idx, q_idx, kv_idx):
        if softcap is not None:
            score = softcap * torch.tanh(score / softcap)
        if causal_mask is not None:
            score = score + causal_mask[batch_idx][0][q_idx][kv_idx]
        return score

    attn_output, attention_weights = flex_attention(
        query,
        key,
        value,
        score_mod=score_mod,
        enable_gqa=True,
        scale=scaling,
        return_lse=True,
    )
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attention_weights


class LlamaAttention(nn.Module):
    def __init__(self, hidden_size=64, num_heads=4, num_kv_heads=2, head_dim=16, softcap=None):
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.scaling = head_dim ** -0.5
        self.attn_logit_softcapping = softcap
        self.q_proj = nn.Linear(hidden_size, num_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * head_dim, hidden_size, bias=False)

    def forward(self, hidden_states, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        attn_output, _ = flex_attention_forward(
            self, query_states, key_states, value_states, attention_mask,
            scaling=self.scaling, softcap=self.attn_logit_softcapping,
        )
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, hidden_size=64):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(hidden_size, eps=1e-6)
        self.self_attn = LlamaAttention(hidden_size)

    def forward(self, hidden_states, attention_mask):
        # 4-D additive causal + padding mask, as transformers builds it for eager/flex score_mod
        seq = hidden_states.shape[1]
        dtype = hidden_states.dtype
        min_value = torch.finfo(dtype).min
        causal = torch.full((seq, seq), min_value, dtype=dtype, device=hidden_states.device).triu(1)
        causal = causal[None, None, :, :] + (1.0 - attention_mask[:, None, None, :].to(dtype)) * min_value
        causal = causal.clamp(min=min_value)
        residual = hidden_states
        hidden_states = self.self_attn(self.input_layernorm(hidden_states), causal)
        return residual + hidden_states


def make_model():
    return LlamaDecoderLayer().eval().requires_grad_(False)  # inference-only export


def example_inputs():
    return (torch.randn(2, 12, 64), torch.ones(2, 12, dtype=torch.long))


def other_inputs():
    m1 = torch.ones(3, 20, dtype=torch.long)
    m1[1, 15:] = 0
    return [(torch.randn(3, 20, 64), m1), (torch.randn(1, 7, 64), torch.ones(1, 7, dtype=torch.long))]


def probe_inputs():
    return other_inputs()
