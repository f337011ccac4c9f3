"""DeBERTa-v2 disentangled self-attention: `build_relative_position` makes the relative position ids with
`np.arange(0, query_size)` / `np.tile` on the sequence length and wraps them in `torch.tensor`, so the exported
model carries the export-time positions and gives incorrect outputs (trace warnings on np.arange).

Source: https://github.com/huggingface/transformers/issues/18199
"""
import math

import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
BLIND = "domains-6"


def build_relative_position(query_size, key_size, bucket_size=-1, max_position=-1):
    q_ids = np.arange(0, query_size)
    k_ids = np.arange(0, key_size)
    rel_pos_ids = q_ids[:, None] - np.tile(k_ids, (q_ids.shape[0], 1))
    rel_pos_ids = torch.tensor(rel_pos_ids, dtype=torch.long)
    rel_pos_ids = rel_pos_ids[:query_size, :]
    rel_pos_ids = rel_pos_ids.unsqueeze(0)
    return rel_pos_ids


class DisentangledSelfAttention(nn.Module):
    def __init__(self, hidden_size=32, num_attention_heads=4, max_relative_positions=64):
        super().__init__()
        self.num_attention_heads = num_attention_heads
        self.attention_head_size = hidden_size // num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.key_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.value_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.pos_att_type = ["c2p", "p2c"]
        self.position_buckets = -1
        self.max_relative_positions = max_relative_positions
        self.pos_ebd_size = self.max_relative_positions
        self.pos_key_proj = nn.Linear(hidden_size, self.all_head_size, bias=True)
        self.pos_query_proj = nn.Linear(hidden_size, self.all_head_size)

    def transpose_for_scores(self, x, attention_heads):
        new_x_shape = x.size()[:-1] + (attention_heads, -1)
        x = x.view(*new_x_shape)
        return x.permute(0, 2, 1, 3).contiguous().view(-1, x.size(1), x.size(-1))

    def forward(self, hidden_states, rel_embeddings):
        query_layer = self.transpose_for_scores(self.query_proj(hidden_states), self.num_attention_heads)
        key_layer = self.transpose_for_scores(self.key_proj(hidden_states), self.num_attention_heads)
        value_layer = self.transpose_for_scores(self.value_proj(hidden_states), self.num_attention_heads)
        scale_factor = 1 + len(self.pos_att_type)
        scale = math.sqrt(query_layer.size(-1) * scale_factor)
        attention_scores = torch.bmm(query_layer, key_layer.transpose(-1, -2)) / scale
        rel_att = self.disentangled_attention_bias(query_layer, key_layer, None, rel_embeddings, scale_factor)
        attention_scores = attention_scores + rel_att
        attention_probs = torch.softmax(attention_scores, -1)
        context_layer = torch.bmm(attention_probs, value_layer)
        context_layer = (
            context_layer.view(-1, self.num_attention_heads, context_layer.size(-2), context_layer.size(-1))
            .permute(0, 2, 1, 3)
            .contiguous()
        )
        new_context_layer_shape = context_layer.size()[:-2] + (-1,)
        return context_layer.view(*new_context_layer_shape)

    def disentangled_attention_bias(self, query_layer, key_layer, relative_pos, rel_embeddings, scale_factor):
        if relative_pos is None:
            q = query_layer.size(-2)
            relative_pos = build_relative_position(
                q, key_layer.size(-2), bucket_size=self.position_buckets, max_position=self.max_relative_positions
            )
        if relative_pos.dim() == 2:
            relative_pos = relative_pos.unsqueeze(0).unsqueeze(0)
        elif relative_pos.dim() == 3:
            relative_pos = relative_pos.unsqueeze(1)
        att_span = self.pos_ebd_size
        relative_pos = relative_pos.long().to(query_layer.device)
        rel_embeddings = rel_embeddings[self.pos_ebd_size - att_span: self.pos_ebd_size + att_span, :].unsqueeze(0)
        pos_key_layer = self.transpose_for_scores(self.pos_key_proj(rel_embeddings), self.num_attention_heads).repeat(
            query_layer.size(0) // self.num_attention_heads, 1, 1)
        pos_query_layer = self.transpose_for_scores(self.pos_query_proj(rel_embeddings), self.num_attention_heads).repeat(
            query_layer.size(0) // self.num_attention_heads, 1, 1)

        score = 0
        # content->position
        scale = math.sqrt(pos_key_layer.size(-1) * scale_factor)
        c2p_att = torch.bmm(query_layer, pos_key_layer.transpose(-1, -2))
        c2p_pos = torch.clamp(relative_pos + att_span, 0, att_span * 2 - 1)
        c2p_att = torch.gather(
            c2p_att, dim=-1,
            index=c2p_pos.squeeze(0).expand([query_layer.size(0), query_layer.size(1), relative_pos.size(-1)]),
        )
        score += c2p_att / scale
        # position->content
        scale = math.sqrt(pos_query_layer.size(-1) * scale_factor)
        r_pos = relative_pos
        p2c_pos = torch.clamp(-r_pos + att_span, 0, att_span * 2 - 1)
        p2c_att = torch.bmm(key_layer, pos_query_layer.transpose(-1, -2))
        p2c_att = torch.gather(
            p2c_att, dim=-1,
            index=p2c_pos.squeeze(0).expand([query_layer.size(0), key_layer.size(-2), key_layer.size(-2)]),
        ).transpose(-1, -2)
        score += p2c_att / scale
        return score


class DebertaV2EncoderLayer(nn.Module):
    def __init__(self, hidden_size=32, max_relative_positions=64):
        super().__init__()
        self.rel_embeddings = nn.Embedding(max_relative_positions * 2, hidden_size)
        self.attention = DisentangledSelfAttention(hidden_size, 4, max_relative_positions)
        self.LayerNorm = nn.LayerNorm(hidden_size)

    def forward(self, hidden_states):
        rel_embeddings = self.LayerNorm(self.rel_embeddings.weight)
        return self.attention(hidden_states, rel_embeddings)


def make_model():
    return DebertaV2EncoderLayer().eval()


def example_inputs():
    return (torch.randn(2, 12, 32),)


def other_inputs():
    return [(torch.randn(3, 20, 32),), (torch.randn(1, 7, 32),)]


def probe_inputs():
    return other_inputs()
