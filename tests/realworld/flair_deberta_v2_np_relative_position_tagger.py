"""Flair sequence tagger on DeBERTa-v2/v3 word embeddings: DeBERTa-v2's `build_relative_position` builds the
relative positions with `np.arange(0, query_size)` / `np.tile` and `torch.tensor(...)` (TracerWarnings: "Converting a
tensor to a Python boolean/float ... q_ids = np.arange(0, query_size)"), then the disentangled attention expands the
gathered index to the current size; the exported ONNX model fails in onnxruntime with "Non-zero status code returned
while running Expand node" when a sentence of another length is tagged.

Source: https://github.com/flairNLP/flair/issues/3260
"""
import math

import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-9"


class DebertaV2Config:
    vocab_size = 100
    hidden_size = 32
    num_attention_heads = 4
    max_relative_positions = 64
    position_buckets = 32
    pos_att_type = ["p2c", "c2p"]
    num_tags = 9


# ---- transformers/models/deberta_v2/modeling_deberta_v2.py (v4.21), trimmed ----
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
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query_proj = nn.Linear(config.hidden_size, self.all_head_size, bias=True)
        self.key_proj = nn.Linear(config.hidden_size, self.all_head_size, bias=True)
        self.value_proj = nn.Linear(config.hidden_size, self.all_head_size, bias=True)
        self.pos_att_type = config.pos_att_type
        self.position_buckets = config.position_buckets
        self.max_relative_positions = config.max_relative_positions
        self.pos_ebd_size = self.position_buckets

    def transpose_for_scores(self, x, attention_heads):
        new_x_shape = x.size()[:-1] + (attention_heads, -1)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3).contiguous().view(-1, x.size(1), x.size(-1))

    def forward(self, hidden_states, relative_pos, rel_embeddings):
        query_layer = self.transpose_for_scores(self.query_proj(hidden_states), self.num_attention_heads)
        key_layer = self.transpose_for_scores(self.key_proj(hidden_states), self.num_attention_heads)
        value_layer = self.transpose_for_scores(self.value_proj(hidden_states), self.num_attention_heads)
        scale_factor = 1 + len(self.pos_att_type)
        scale = math.sqrt(query_layer.size(-1) * scale_factor)
        attention_scores = torch.bmm(query_layer, key_layer.transpose(-1, -2)) / scale
        rel_att = self.disentangled_attention_bias(query_layer, key_layer, relative_pos, rel_embeddings, scale_factor)
        attention_scores = attention_scores + rel_att
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        context_layer = torch.bmm(attention_probs, value_layer)
        context_layer = (context_layer.view(-1, self.num_attention_heads, context_layer.size(-2), context_layer.size(-1))
                         .permute(0, 2, 1, 3).contiguous())
        return context_layer.view(context_layer.size()[:-2] + (-1,))

    def disentangled_attention_bias(self, query_layer, key_layer, relative_pos, rel_embeddings, scale_factor):
        if relative_pos is None:
            q = query_layer.size(-2)
            relative_pos = build_relative_position(q, key_layer.size(-2), bucket_size=self.position_buckets,
                                                   max_position=self.max_relative_positions)
        if relative_pos.dim() == 2:
            relative_pos = relative_pos.unsqueeze(0).unsqueeze(0)
        elif relative_pos.dim() == 3:
            relative_pos = relative_pos.unsqueeze(1)
        att_span = self.pos_ebd_size
        relative_pos = relative_pos.long().to(query_layer.device)
        rel_embeddings = rel_embeddings[0 : att_span * 2, :].unsqueeze(0)
        pos_query_layer = self.transpose_for_scores(self.query_proj(rel_embeddings), self.num_attention_heads).repeat(
            query_layer.size(0) // self.num_attention_heads, 1, 1)
        pos_key_layer = self.transpose_for_scores(self.key_proj(rel_embeddings), self.num_attention_heads).repeat(
            query_layer.size(0) // self.num_attention_heads, 1, 1)

        score = 0
        # content->position
        if "c2p" in self.pos_att_type:
            scale = math.sqrt(pos_key_layer.size(-1) * scale_factor)
            c2p_att = torch.bmm(query_layer, pos_key_layer.transpose(-1, -2))
            c2p_pos = torch.clamp(relative_pos + att_span, 0, att_span * 2 - 1)
            c2p_att = torch.gather(c2p_att, dim=-1,
                                   index=c2p_pos.squeeze(0).expand([query_layer.size(0), query_layer.size(1), relative_pos.size(-1)]))
            score += c2p_att / scale
        # position->content
        if "p2c" in self.pos_att_type:
            scale = math.sqrt(pos_query_layer.size(-1) * scale_factor)
            if key_layer.size(-2) != query_layer.size(-2):
                r_pos = build_relative_position(key_layer.size(-2), key_layer.size(-2), bucket_size=self.position_buckets,
                                                max_position=self.max_relative_positions).to(query_layer.device)
                r_pos = r_pos.unsqueeze(0)
            else:
                r_pos = relative_pos
            p2c_pos = torch.clamp(-r_pos + att_span, 0, att_span * 2 - 1)
            p2c_att = torch.bmm(key_layer, pos_query_layer.transpose(-1, -2))
            p2c_att = torch.gather(p2c_att, dim=-1,
                                   index=p2c_pos.squeeze(0).expand([query_layer.size(0), key_layer.size(-2), key_layer.size(-2)])
                                   ).transpose(-1, -2)
            score += p2c_att / scale
        return score


class DebertaV2Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.position_buckets = config.position_buckets
        self.max_relative_positions = config.max_relative_positions
        self.rel_embeddings = nn.Embedding(self.position_buckets * 2, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size)
        self.attention = DisentangledSelfAttention(config)

    def get_rel_pos(self, hidden_states, query_states=None, relative_pos=None):
        if relative_pos is None:
            q = query_states.size(-2) if query_states is not None else hidden_states.size(-2)
            relative_pos = build_relative_position(q, hidden_states.size(-2), bucket_size=self.position_buckets,
                                                   max_position=self.max_relative_positions)
        return relative_pos

    def forward(self, hidden_states):
        relative_pos = self.get_rel_pos(hidden_states)
        rel_embeddings = self.LayerNorm(self.rel_embeddings.weight)
        return hidden_states + self.attention(hidden_states, relative_pos, rel_embeddings)


class FlairDebertaTagger(nn.Module):
    """TransformerWordEmbeddings(DeBERTa) -> SequenceTagger linear layer (no CRF)."""

    def __init__(self, config=DebertaV2Config()):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.encoder = DebertaV2Encoder(config)
        self.linear = nn.Linear(config.hidden_size, config.num_tags)

    def forward(self, input_ids):
        hidden_states = self.encoder(self.word_embeddings(input_ids))
        return self.linear(hidden_states)


def make_model():
    return FlairDebertaTagger().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 100, (1, 21)),), (torch.randint(0, 100, (3, 7)),)]


def probe_inputs():
    return other_inputs()
