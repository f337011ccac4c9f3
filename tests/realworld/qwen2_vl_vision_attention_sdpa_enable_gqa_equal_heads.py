"""Qwen2-VL vision tower (rknn-llm export_vision_qwen2.py): the vision attention goes through the
transformers SDPA integration, which passes `enable_gqa=True` to `F.scaled_dot_product_attention`
whenever the attention mask is None (even though q and kv have the same number of heads);
`torch.onnx.export(model, pixel_values, path, opset_version=18)` fails with
"AssertionError: conversion of scaled_dot_product_attention not implemented if enable_gqa is True".

Source: https://github.com/airockchip/rknn-llm/issues/464
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "patches"}, "rotary_pos_emb": {0: "patches"}}
BLIND = "operators-16"


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb_vision(q, k, cos, sin):
    orig_q_dtype = q.dtype
    orig_k_dtype = k.dtype
    q, k = q.float(), k.float()
    cos, sin = cos.unsqueeze(-2).float(), sin.unsqueeze(-2).float()
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed.to(orig_q_dtype), k_embed.to(orig_k_dtype)


def use_gqa_in_sdpa(attention_mask, key):
    # transformers: torch >= 2.5 and no mask -> let SDPA broadcast kv heads itself
    return attention_mask is None


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None):
    sdpa_kwargs = {}
    if hasattr(module, "num_key_value_groups"):
        if not use_gqa_in_sdpa(attention_mask, key):
            key = torch.repeat_interleave(key, module.num_key_value_groups, dim=1)
            value = torch.repeat_interleave(value, module.num_key_value_groups, dim=1)
        else:
            sdpa_kwargs = {"enable_gqa": True}
    is_causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    attn_output = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, dropout_p=dropout, scale=scaling, is_causal=is_causal,
        **sdpa_kwargs,
    )
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


class VisionAttention(nn.Module):
    def __init__(self, dim=64, num_heads=4):
        super().__init__()
        self.dim = dim
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.num_key_value_groups = 1  # needed for eager attention
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)
        self.scaling = self.head_dim**-0.5
        self.attention_dropout = 0.0
        self.is_causal = False

    def forward(self, hidden_states, position_embeddings):
        seq_length = hidden_states.shape[0]
        query_states, key_states, value_states = (
            self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
        )
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb_vision(query_states, key_states, cos, sin)

        query_states = query_states.transpose(0, 1).unsqueeze(0)
        key_states = key_states.transpose(0, 1).unsqueeze(0)
        value_states = value_states.transpose(0, 1).unsqueeze(0)

        attn_output, _ = sdpa_attention_forward(
            self, query_states, key_states, value_states, None,
            dropout=0.0 if not self.training else self.attention_dropout, scaling=self.scaling, is_causal=False,
        )
        attn_output = attn_output.reshape(seq_length, -1).contiguous()
        return self.proj(attn_output)


class Qwen2VLVisionBlock(nn.Module):
    def __init__(self, dim=64, num_heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = VisionAttention(dim, num_heads)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(approximate="tanh"), nn.Linear(dim * 4, dim))

    def forward(self, hidden_states, rotary_pos_emb):
        emb = torch.cat((rotary_pos_emb, rotary_pos_emb), dim=-1)
        position_embeddings = (emb.cos(), emb.sin())
        hidden_states = hidden_states + self.attn(self.norm1(hidden_states), position_embeddings=position_embeddings)
        hidden_states = hidden_states + self.mlp(self.norm2(hidden_states))
        return hidden_states


def make_model():
    return Qwen2VLVisionBlock().eval()


def example_inputs():
    return (torch.randn(64, 64), torch.randn(64, 8))


def other_inputs():
    return [(torch.randn(100, 64), torch.randn(100, 8)), (torch.randn(36, 64), torch.randn(36, 8))]


def probe_inputs():
    return other_inputs()
