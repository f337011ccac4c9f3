"""Granite Speech (onnx-community ONNX export of the speech encoder): the conformer's block attention computes
`num_blocks = math.ceil(num_features / self.context_size)` and right-pads only `if remainder > 0`; the exported
graph lost that guard, so when the encoder frame count is an exact multiple of `context_size` it pads a whole
extra block and the block reshape aborts in onnxruntime ("Input shape:{1,1200,1024}, requested
shape:{1,5,200,8,-1}"), while other lengths decode fine.

Source: https://github.com/kizuna-ai-lab/sokuji/issues/500
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"hidden_states": {1: "frames"}}
BLIND = "domains-28"


class GraniteSpeechConformerAttention(nn.Module):
    def __init__(self, hidden_dim=32, num_heads=4, dim_head=8, context_size=8, max_pos_emb=16):
        super().__init__()
        inner_dim = dim_head * num_heads
        self.max_pos_emb = max_pos_emb
        self.context_size = context_size
        self.num_heads = num_heads
        self.dim_head = dim_head
        self.scale = dim_head ** -0.5
        self.pre_norm = nn.LayerNorm(hidden_dim)
        self.to_q = nn.Linear(hidden_dim, inner_dim, bias=False)
        self.to_kv = nn.Linear(hidden_dim, inner_dim * 2, bias=False)
        self.to_out = nn.Linear(inner_dim, hidden_dim)
        self.rel_pos_emb = nn.Embedding(2 * max_pos_emb + 1, dim_head)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, attention_dists):
        hidden_states = self.pre_norm(hidden_states)
        bsz, num_features, _ = hidden_states.shape

        num_blocks = math.ceil(num_features / self.context_size)
        remainder = num_features % self.context_size
        if remainder > 0:
            # right padding to reach block size
            hidden_states = torch.nn.functional.pad(hidden_states, (0, 0, 0, self.context_size - remainder))

        query_states = self.to_q(hidden_states)
        key_states, value_states = self.to_kv(hidden_states).chunk(2, dim=-1)

        query_states = query_states.reshape(bsz, num_blocks, self.context_size, self.num_heads, -1).transpose(2, 3)
        key_states = key_states.reshape(bsz, num_blocks, self.context_size, self.num_heads, -1).transpose(2, 3)
        value_states = value_states.reshape(bsz, num_blocks, self.context_size, self.num_heads, -1).transpose(2, 3)

        # shaw's relative positional embedding
        dist = attention_dists.to(hidden_states.device)
        rel_pos_emb = self.rel_pos_emb(dist)
        rel_pos_emb_expanded = rel_pos_emb.view([1, 1, 1] + list(rel_pos_emb.shape))
        pos_attn = torch.sum(query_states.unsqueeze(-2) * rel_pos_emb_expanded, dim=-1) * self.scale

        if remainder > 0:
            # masked attention in the extended block
            mask = torch.ones(self.context_size, self.context_size, dtype=bool, device=hidden_states.device)
            mask[:remainder, :remainder] = 0
            mask_value = -torch.finfo(pos_attn.dtype).max
            pos_attn[:, -1, :].masked_fill_(mask, mask_value)

        out = F.scaled_dot_product_attention(
            query_states, key_states, value_states, attn_mask=pos_attn, scale=self.scale)
        out = out.transpose(2, 3).reshape(bsz, hidden_states.shape[1], -1)
        out = self.to_out(out[:, :num_features, :])
        return self.dropout(out)


class GraniteSpeechEncoderBlock(nn.Module):
    def __init__(self, hidden_dim=32, context_size=8, max_pos_emb=16):
        super().__init__()
        self.attn = GraniteSpeechConformerAttention(hidden_dim, context_size=context_size, max_pos_emb=max_pos_emb)
        seq = torch.arange(context_size)
        relpos_dist = seq.view(-1, 1) - seq.view(1, -1)
        self.register_buffer(
            "attention_dists", torch.clamp(relpos_dist, -context_size, context_size) + max_pos_emb,
            persistent=False)

    def forward(self, hidden_states):
        return hidden_states + self.attn(hidden_states, attention_dists=self.attention_dists)


def make_model():
    return GraniteSpeechEncoderBlock().eval()


def example_inputs():
    return (torch.randn(1, 20, 32),)


def other_inputs():
    return [(torch.randn(1, 24, 32),), (torch.randn(1, 13, 32),)]


def probe_inputs():
    return other_inputs()
