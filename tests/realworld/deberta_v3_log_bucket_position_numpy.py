"""DeBERTa-v2/v3 disentangled attention (position_buckets > 0): `build_relative_position` makes the relative
positions with `np.arange` / `np.tile` on the sequence lengths and buckets them in `make_log_bucket_position`
with `np.sign`, `np.where`, `np.log` and `np.ceil`, then wraps the result in `torch.tensor`; the scale is
`math.sqrt(query_layer.size(-1) * scale_factor)`. The PR lists these as the critical trace warnings that keep
the ONNX export from working (the positions are frozen at the export-time length).
(`.astype(np.int)` of the original written `.astype(int)`: np.int no longer exists in NumPy.)

Source: https://github.com/huggingface/transformers/pull/18272
"""
import math

import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "domains-32"


def make_log_bucket_position(relative_pos, bucket_size, max_position):
    sign = np.sign(relative_pos)
    mid = bucket_size // 2
    abs_pos = np.where((relative_pos < mid) & (relative_pos > -mid), mid - 1, np.abs(relative_pos))
    log_pos = np.ceil(np.log(abs_pos / mid) / np.log((max_position - 1) / mid) * (mid - 1)) + mid
    bucket_pos = np.where(abs_pos <= mid, relative_pos, log_pos * sign).astype(int)
    return bucket_pos


def build_relative_position(query_size, key_size, bucket_size=-1, max_position=-1):
    q_ids = np.arange(0, query_size)
    k_ids = np.arange(0, key_size)
    rel_pos_ids = q_ids[:, None] - np.tile(k_ids, (q_ids.shape[0], 1))
    if bucket_size > 0 and max_position > 0:
        rel_pos_ids = make_log_bucket_position(rel_pos_ids, bucket_size, max_position)
    rel_pos_ids = torch.tensor(rel_pos_ids, dtype=torch.long)
    rel_pos_ids = rel_pos_ids[:query_size, :]
    rel_pos_ids = rel_pos_ids.unsqueeze(0)
    return rel_pos_ids


class DisentangledSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_attention_heads=4, position_buckets=8, max_relative_positions=64):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.key_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.value_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.pos_att_type = ["c2p", "p2c"]
        self.position_buckets = position_buckets
        self.max_relative_positions = max_relative_positions
        self.pos_ebd_size = self.position_buckets
        self.rel_embeddings = nn.Embedding(self.pos_ebd_size * 2, hidden_size)

    def transpose_for_scores(self, x, attention_heads):
        new_x_shape = x.size()[:-1] + (attention_heads, -1)
        x = x.view(*new_x_shape)
        return x.permute(0, 2, 1, 3).contiguous().view(-1, x.size(1), x.size(-1))

    def forward(self, hidden_states):
        query_layer = self.transpose_for_scores(self.query_proj(hidden_states), self.num_attention_heads)
        key_layer = self.transpose_for_scores(self.key_proj(hidden_states), self.num_attention_heads)
        value_layer = self.transpose_for_scores(self.value_proj(hidden_states), self.num_attention_heads)
        scale_factor = 1 + len(self.pos_att_type)
        scale = math.sqrt(query_layer.size(-1) * scale_factor)
        attention_scores = torch.bmm(query_layer, key_layer.transpose(-1, -2)) / scale
        attention_scores = attention_scores + self.disentangled_attention_bias(query_layer, key_layer, scale_factor)
        attention_probs = torch.softmax(attention_scores, -1)
        context_layer = torch.bmm(attention_probs, value_layer)
        context_layer = context_layer.view(-1, self.num_attention_heads, context_layer.size(-2), context_layer.size(-1))
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        return context_layer.view(context_layer.size()[:-2] + (-1,))

    def disentangled_attention_bias(self, query_layer, key_layer, scale_factor):
        q = query_layer.size(-2)
        relative_pos = build_relative_position(q, key_layer.size(-2), bucket_size=self.position_buckets,
                                               max_position=self.max_relative_positions)
        att_span = self.pos_ebd_size
        relative_pos = relative_pos.long().to(query_layer.device)
        rel_embeddings = self.rel_embeddings.weight[0:att_span * 2, :].unsqueeze(0)
        pos_key_layer = self.transpose_for_scores(self.key_proj(rel_embeddings), self.num_attention_heads).repeat(
            query_layer.size(0) // self.num_attention_heads, 1, 1)
        scale = math.sqrt(pos_key_layer.size(-1) * scale_factor)
        c2p_att = torch.bmm(query_layer, pos_key_layer.transpose(-1, -2))
        c2p_pos = torch.clamp(relative_pos + att_span, 0, att_span * 2 - 1)
        c2p_att = torch.gather(c2p_att, dim=-1,
                               index=c2p_pos.squeeze(0).expand([query_layer.size(0), query_layer.size(1), relative_pos.size(-1)]))
        return c2p_att / scale


def make_model():
    return DisentangledSelfAttention().eval()


def example_inputs():
    return (torch.randn(2, 12, 32),)


def other_inputs():
    return [(torch.randn(3, 40, 32),), (torch.randn(1, 7, 32),)]


def probe_inputs():
    return other_inputs()
