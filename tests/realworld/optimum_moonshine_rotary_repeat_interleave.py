"""Moonshine's rotary embedding (transformers MoonshineRotaryEmbedding + apply_rotary_pos_emb) interleaves cos/sin
with `cos[..., : cos.shape[-1] // 2].repeat_interleave(2, dim=-1)`; optimum's PR adding Moonshine ONNX export says
models using `Tensor.repeat_interleave` fail to export (a PyTorch exporter bug) and patches the op with an
ONNX-compatible replacement.

Source: https://github.com/huggingface/optimum/pull/2162
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"q": {0: "batch", 2: "seq"}, "k": {0: "batch", 2: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "operators-30"


class MoonshineRotaryEmbedding(nn.Module):
    def __init__(self, head_dim=20, partial_rotary_factor=0.8, base=10000.0):
        super().__init__()
        dim = int(head_dim * partial_rotary_factor)
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1).to(x.device)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., 0::2]
    x2 = x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)

    # Interleave them instead of usual shape
    cos = cos[..., : cos.shape[-1] // 2].repeat_interleave(2, dim=-1)
    sin = sin[..., : sin.shape[-1] // 2].repeat_interleave(2, dim=-1)

    # Keep half or full tensor for later concatenation
    rotary_dim = cos.shape[-1]
    q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
    k_rot, k_pass = k[..., :rotary_dim], k[..., rotary_dim:]

    q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
    k_embed = (k_rot * cos) + (rotate_half(k_rot) * sin)

    q_embed = torch.cat([q_embed, q_pass], dim=-1)
    k_embed = torch.cat([k_embed, k_pass], dim=-1)
    return q_embed, k_embed


class MoonshineAttentionRope(nn.Module):
    def __init__(self):
        super().__init__()
        self.rotary_emb = MoonshineRotaryEmbedding()

    def forward(self, q, k, position_ids):
        cos, sin = self.rotary_emb(q, position_ids)
        return apply_rotary_pos_emb(q, k, cos, sin)


def make_model():
    return MoonshineAttentionRope()


def _inputs(b, t):
    return (torch.randn(b, 4, t, 20), torch.randn(b, 4, t, 20), torch.arange(t).unsqueeze(0).repeat(b, 1))


def example_inputs():
    return _inputs(2, 7)


def other_inputs():
    return [_inputs(3, 12), _inputs(1, 5)]


def probe_inputs():
    return other_inputs()
