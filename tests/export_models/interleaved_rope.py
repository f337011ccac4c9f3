"""GLM's interleaved RoPE (transformers' GlmAttention, trimmed): `cos[..., :d // 2]
.repeat_interleave(2, dim=-1)` beside a pass-through half. The legacy exporter's repeat_interleave
symbolic adds the rank to dim=-1 in place, in the constant the slices' -1 share, and the later
`torch.cat` fails ("All tensors must have the same rank"); ONX519 rewrites the two calls
(tests/test_export_operator_repairs.py)."""
import torch
from torch import nn


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

    # Apply rotary embeddings on the first half or full tensor
    q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
    k_embed = (k_rot * cos) + (rotate_half(k_rot) * sin)

    # Concatenate back to full shape
    q_embed = torch.cat([q_embed, q_pass], dim=-1)
    k_embed = torch.cat([k_embed, k_pass], dim=-1)
    return q_embed, k_embed


class GlmRotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


class GlmAttentionQK(nn.Module):
    def __init__(self, hidden=64, heads=4, partial_rotary_factor=0.5):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.q_proj = nn.Linear(hidden, hidden)
        self.k_proj = nn.Linear(hidden, hidden)
        self.rotary_emb = GlmRotaryEmbedding(int(self.head_dim * partial_rotary_factor))

    def forward(self, hidden_states, position_ids):
        b, s, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        cos, sin = self.rotary_emb(hidden_states, position_ids)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        return q, k


def make_model():
    torch.manual_seed(0)
    return GlmAttentionQK().eval()


def _inputs(b, s):
    return (torch.randn(b, s, 64), torch.arange(s).unsqueeze(0).expand(b, s).contiguous())


def example_inputs():
    return _inputs(2, 12)


def probe_inputs():
    return [_inputs(3, 20), _inputs(1, 5)]


DYNAMIC = {0: {0: "batch", 1: "seq"}, 1: {0: "batch", 1: "seq"}}
