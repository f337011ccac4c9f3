"""Qwen2.5-VL vision tower (dynamic resolution, several images packed in one sequence): for sdpa/eager attention
`Qwen2_5_VLVisionAttention` processes each image separately with `lengths = cu_seqlens[1:] - cu_seqlens[:-1];
splits = [torch.split(tensor, lengths.tolist(), dim=2) ...]`, then attends per chunk and `torch.cat`s the results.
The `.tolist()` split sizes come from tensor values, so onnx-diagnostic's Qwen patches replace this path while
exporting (a custom attention op over `cu_seqlens`). (One vision block; 1-D rotary instead of the 2-D grid one.)

Source: https://github.com/sdpython/onnx-diagnostic/pull/292
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "seq"}, "cu_seqlens": {0: "num_images_plus_one"}}
BLIND = "domains-53"


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb_vision(q, k, cos, sin):
    orig_q_dtype, orig_k_dtype = q.dtype, k.dtype
    q, k = q.float(), k.float()
    cos, sin = cos.unsqueeze(-2).float(), sin.unsqueeze(-2).float()
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed.to(orig_q_dtype), k_embed.to(orig_k_dtype)


def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_output = torch.matmul(attn_weights, value)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights


class Qwen2_5_VLVisionAttention(nn.Module):
    def __init__(self, dim=32, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3, bias=True)
        self.proj = nn.Linear(dim, dim)
        self.scaling = self.head_dim ** -0.5
        self.attention_dropout = 0.0

    def forward(self, hidden_states, cu_seqlens, position_embeddings=None, **kwargs):
        seq_length = hidden_states.shape[0]
        query_states, key_states, value_states = (
            self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
        )
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb_vision(query_states, key_states, cos, sin)

        query_states = query_states.transpose(0, 1).unsqueeze(0)
        key_states = key_states.transpose(0, 1).unsqueeze(0)
        value_states = value_states.transpose(0, 1).unsqueeze(0)

        attention_interface = eager_attention_forward
        # Other implementations: Process each chunk separately
        lengths = cu_seqlens[1:] - cu_seqlens[:-1]
        splits = [
            torch.split(tensor, lengths.tolist(), dim=2) for tensor in (query_states, key_states, value_states)
        ]

        attn_outputs = [
            attention_interface(
                self,
                q,
                k,
                v,
                attention_mask=None,
                scaling=self.scaling,
                dropout=0.0 if not self.training else self.attention_dropout,
                is_causal=False,
                **kwargs,
            )[0]
            for q, k, v in zip(*splits)
        ]
        attn_output = torch.cat(attn_outputs, dim=1)

        attn_output = attn_output.reshape(seq_length, -1).contiguous()
        attn_output = self.proj(attn_output)
        return attn_output


class Qwen2_5_VLVisionBlock(nn.Module):
    def __init__(self, dim=32, num_heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Qwen2_5_VLVisionAttention(dim, num_heads)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim // num_heads, 2, dtype=torch.float) / (dim // num_heads)))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, hidden_states, cu_seqlens):
        seq = torch.arange(hidden_states.shape[0], dtype=self.inv_freq.dtype)
        rotary_pos_emb = torch.outer(seq, self.inv_freq)
        emb = torch.cat((rotary_pos_emb, rotary_pos_emb), dim=-1)
        position_embeddings = (emb.cos(), emb.sin())
        return hidden_states + self.attn(self.norm1(hidden_states), cu_seqlens=cu_seqlens,
                                         position_embeddings=position_embeddings)


def _cu(lengths):
    return torch.nn.functional.pad(torch.tensor(lengths).cumsum(0, dtype=torch.int32), (1, 0), value=0)


def make_model():
    return Qwen2_5_VLVisionBlock().eval()


def example_inputs():
    return (torch.randn(40, 32), _cu([16, 24]))


def other_inputs():
    return [(torch.randn(52, 32), _cu([8, 20, 24])), (torch.randn(12, 32), _cu([12]))]


def probe_inputs():
    return other_inputs()
