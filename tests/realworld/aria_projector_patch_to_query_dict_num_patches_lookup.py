"""Aria (MoE vision-language LLM) projector: `AriaProjector.forward` picks how many learned queries to use
by looking the patch count up in the Python dict `patch_to_query_dict[num_patches]` (after a `not in`
check); under dynamic shapes the patch dim is a SymInt, so export raises `TypeError: unhashable type:
non-nested SymInt` (static shapes are fine), as the PR's export-test report says.
(Vision tower and MoE text model left out; projector with its cross attention and MLP, small sizes.)

Source: https://github.com/huggingface/transformers/pull/48907
"""
import torch
from torch import nn
from typing import Optional

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"key_value_states": {0: "batch", 1: "num_patches"}}
BLIND = "domains-41"


class AriaCrossAttention(nn.Module):
    def __init__(self, hidden_size, num_heads, dropout_rate=0):
        super().__init__()
        self.num_heads = num_heads
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.multihead_attn = nn.MultiheadAttention(hidden_size, num_heads, batch_first=True)
        self.linear = nn.Linear(hidden_size, hidden_size)
        self.dropout = nn.Dropout(dropout_rate)
        self.layer_norm = nn.LayerNorm(hidden_size)
        self.layer_norm_kv = nn.LayerNorm(hidden_size)

    def forward(self, key_value_states, hidden_states, attn_mask=None):
        query = self.q_proj(self.layer_norm(hidden_states))
        key_value_states = self.layer_norm_kv(key_value_states)
        key = self.k_proj(key_value_states)
        value = self.v_proj(key_value_states)
        attn_output, _ = self.multihead_attn(query, key, value, attn_mask=attn_mask)
        attn_output = self.dropout(self.linear(attn_output))
        return attn_output


class AriaProjectorMLP(nn.Module):
    def __init__(self, in_features, hidden_features, output_dim):
        super().__init__()
        self.linear_in = nn.Linear(in_features, hidden_features, bias=False)
        self.linear_out = nn.Linear(hidden_features, output_dim, bias=False)
        self.act = nn.GELU(approximate="tanh")

    def forward(self, hidden_states):
        return self.linear_out(self.act(self.linear_in(hidden_states)))


class AriaProjector(nn.Module):
    def __init__(self, patch_to_query_dict={16: 4, 36: 6, 64: 8}, vision_hidden=32, num_heads=4, text_hidden=48):
        super().__init__()
        self.patch_to_query_dict = patch_to_query_dict
        self.in_features = vision_hidden
        self.num_heads = num_heads
        self.hidden_features = text_hidden
        self.output_dim = text_hidden
        self.query = nn.Parameter(torch.randn(max(patch_to_query_dict.values()), self.in_features) * 0.02)
        self.cross_attn = AriaCrossAttention(vision_hidden, num_heads)
        self.layer_norm = nn.LayerNorm(self.in_features)
        self.feed_forward = AriaProjectorMLP(self.in_features, self.hidden_features, self.output_dim)

    def forward(self, key_value_states: torch.Tensor, attn_mask: Optional[torch.Tensor] = None):
        batch_size, num_patches = key_value_states.shape[0], key_value_states.shape[1]

        if num_patches not in self.patch_to_query_dict:
            raise KeyError(
                f"Number of patches {num_patches} not found in patch_to_query_dict amongst possible values {self.patch_to_query_dict.keys()}."
            )
        query_num = self.patch_to_query_dict[num_patches]

        queries = self.query[:query_num].unsqueeze(0).repeat(batch_size, 1, 1)

        if attn_mask is not None:
            attn_mask = attn_mask.repeat_interleave(self.num_heads, 0)
            attn_mask = attn_mask.unsqueeze(1).expand(-1, queries.size(1), -1)

        attention_out = self.cross_attn(key_value_states, queries, attn_mask=attn_mask)

        out = self.feed_forward(self.layer_norm(attention_out))

        return out


def make_model():
    return AriaProjector().eval()


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 36, 32),), (torch.randn(1, 64, 32),)]


def probe_inputs():
    return other_inputs()
