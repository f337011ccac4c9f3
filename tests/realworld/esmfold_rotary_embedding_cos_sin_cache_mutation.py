"""ESMFold (EsmForProteinFolding) runs ESM-2 self-attention whose RotaryEmbedding rebuilds its cos/sin
tables in forward only when `seq_len != self._seq_len_cached`, storing `_seq_len_cached`,
`_cos_cached` and `_sin_cached` on the module; the commit reports this state mutation makes the traced
control flow diverge between passes (SpeculationLogDivergence under torch.compile) and replaces it with
a stateless table computed from the input length.

Source: https://github.com/tenstorrent/tt-forge-models/commit/bcf8f40eb3f1c185963c002a931c6566054b14a8
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"hidden_states": {0: "batch", 1: "residues"}}
BLIND = "domains-80"


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(x, cos, sin):
    cos = cos[:, :, : x.shape[-2], :]
    sin = sin[:, :, : x.shape[-2], :]
    return (x * cos) + (rotate_half(x) * sin)


class RotaryEmbedding(torch.nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq)
        self._seq_len_cached = None
        self._cos_cached = None
        self._sin_cached = None

    def _update_cos_sin_tables(self, x, seq_dimension=2):
        seq_len = x.shape[seq_dimension]
        if seq_len != self._seq_len_cached or self._cos_cached.device != x.device:
            self._seq_len_cached = seq_len
            t = torch.arange(x.shape[seq_dimension], device=x.device).type_as(self.inv_freq)
            freqs = torch.outer(t, self.inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1).to(x.device)
            self._cos_cached = emb.cos()[None, None, :, :]
            self._sin_cached = emb.sin()[None, None, :, :]
        return self._cos_cached, self._sin_cached

    def forward(self, q, k):
        self._cos_cached, self._sin_cached = self._update_cos_sin_tables(k, seq_dimension=-2)
        return (
            apply_rotary_pos_emb(q, self._cos_cached, self._sin_cached).to(dtype=q.dtype),
            apply_rotary_pos_emb(k, self._cos_cached, self._sin_cached).to(dtype=k.dtype),
        )


class EsmSelfAttention(nn.Module):
    def __init__(self, hidden_size=64, num_attention_heads=4):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = hidden_size
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)
        self.rotary_embeddings = RotaryEmbedding(dim=self.attention_head_size)

    def forward(self, hidden_states):
        b, n, _ = hidden_states.shape
        shape = (b, n, self.num_attention_heads, self.attention_head_size)
        query_layer = self.query(hidden_states).view(shape).transpose(1, 2)
        key_layer = self.key(hidden_states).view(shape).transpose(1, 2)
        value_layer = self.value(hidden_states).view(shape).transpose(1, 2)
        query_layer = query_layer * self.attention_head_size**-0.5
        query_layer, key_layer = self.rotary_embeddings(query_layer, key_layer)
        attention_probs = torch.matmul(query_layer, key_layer.transpose(-1, -2)).softmax(dim=-1)
        context = torch.matmul(attention_probs, value_layer).transpose(1, 2)
        return context.reshape(b, n, self.all_head_size)


class EsmTrunk(nn.Module):
    def __init__(self, hidden_size=64, num_layers=2):
        super().__init__()
        self.layers = nn.ModuleList([EsmSelfAttention(hidden_size) for _ in range(num_layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(hidden_size) for _ in range(num_layers)])

    def forward(self, hidden_states):
        for norm, attn in zip(self.norms, self.layers):
            hidden_states = hidden_states + attn(norm(hidden_states))
        return hidden_states


def make_model():
    return EsmTrunk()


def example_inputs():
    return (torch.randn(2, 12, 64),)


def other_inputs():
    return [(torch.randn(3, 20, 64),), (torch.randn(1, 7, 64),)]


def probe_inputs():
    return other_inputs()
