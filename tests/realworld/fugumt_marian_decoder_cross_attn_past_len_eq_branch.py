"""FuguMT (Marian MT) decoder step exported with its KV cache as inputs: MarianAttention picks the
cross-attention branch with `past_key_value[0].shape[2] == key_value_states.shape[1]` (reuse the cached
encoder keys/values) or else projects the encoder states again; the report says one decoder model must
serve the first step (empty cache) and the later steps (full cache), and the export fixes one branch,
so they rewrote the attention to run without this branch.

Source: https://github.com/ailia-ai/ailia-models/issues/1159
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "hidden_states": {0: "batch"},
    "encoder_hidden_states": {0: "batch", 1: "src_len"},
    "past_self_key": {0: "batch", 2: "past_len"},
    "past_self_value": {0: "batch", 2: "past_len"},
    "past_cross_key": {0: "batch", 2: "cross_len"},
    "past_cross_value": {0: "batch", 2: "cross_len"},
}
BLIND = "domains-21"


class MarianAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, is_decoder=False, bias=True):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.is_decoder = is_decoder
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def _shape(self, tensor: torch.Tensor, seq_len: int, bsz: int):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(
        self,
        hidden_states: torch.Tensor,
        key_value_states: Optional[torch.Tensor] = None,
        past_key_value: Optional[Tuple[torch.Tensor]] = None,
        attention_mask: Optional[torch.Tensor] = None,
    ):
        is_cross_attention = key_value_states is not None
        bsz, tgt_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states) * self.scaling
        if (
            is_cross_attention
            and past_key_value is not None
            and past_key_value[0].shape[2] == key_value_states.shape[1]
        ):
            # reuse k,v, cross_attentions
            key_states = past_key_value[0]
            value_states = past_key_value[1]
        elif is_cross_attention:
            # cross_attentions
            key_states = self._shape(self.k_proj(key_value_states), -1, bsz)
            value_states = self._shape(self.v_proj(key_value_states), -1, bsz)
        elif past_key_value is not None:
            # reuse k, v, self_attention
            key_states = self._shape(self.k_proj(hidden_states), -1, bsz)
            value_states = self._shape(self.v_proj(hidden_states), -1, bsz)
            key_states = torch.cat([past_key_value[0], key_states], dim=2)
            value_states = torch.cat([past_key_value[1], value_states], dim=2)
        else:
            # self_attention
            key_states = self._shape(self.k_proj(hidden_states), -1, bsz)
            value_states = self._shape(self.v_proj(hidden_states), -1, bsz)

        if self.is_decoder:
            past_key_value = (key_states, value_states)

        proj_shape = (bsz * self.num_heads, -1, self.head_dim)
        query_states = self._shape(query_states, tgt_len, bsz).view(*proj_shape)
        key_states = key_states.reshape(*proj_shape)
        value_states = value_states.reshape(*proj_shape)

        src_len = key_states.size(1)
        attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
        if attention_mask is not None:
            attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask
            attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_probs = nn.functional.dropout(attn_weights, p=self.dropout, training=self.training)
        attn_output = torch.bmm(attn_probs, value_states)

        attn_output = attn_output.view(bsz, self.num_heads, tgt_len, self.head_dim)
        attn_output = attn_output.transpose(1, 2)
        attn_output = attn_output.reshape(bsz, tgt_len, self.embed_dim)
        attn_output = self.out_proj(attn_output)
        return attn_output, None, past_key_value


class MarianDecoderLayer(nn.Module):
    def __init__(self, d_model=32, heads=4, ffn_dim=64):
        super().__init__()
        self.self_attn = MarianAttention(d_model, heads, is_decoder=True)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.encoder_attn = MarianAttention(d_model, heads, is_decoder=True)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, hidden_states, encoder_hidden_states, past_key_value):
        residual = hidden_states
        self_attn_past_key_value = past_key_value[:2] if past_key_value is not None else None
        hidden_states, _, present_key_value = self.self_attn(
            hidden_states=hidden_states, past_key_value=self_attn_past_key_value
        )
        hidden_states = self.self_attn_layer_norm(residual + hidden_states)

        residual = hidden_states
        cross_attn_past_key_value = past_key_value[-2:] if past_key_value is not None else None
        hidden_states, _, cross_attn_present_key_value = self.encoder_attn(
            hidden_states=hidden_states,
            key_value_states=encoder_hidden_states,
            past_key_value=cross_attn_past_key_value,
        )
        hidden_states = self.encoder_attn_layer_norm(residual + hidden_states)
        present_key_value = present_key_value + cross_attn_present_key_value

        residual = hidden_states
        hidden_states = self.fc2(nn.functional.silu(self.fc1(hidden_states)))
        hidden_states = self.final_layer_norm(residual + hidden_states)
        return (hidden_states,) + present_key_value


class DecoderStep(nn.Module):
    """The exported step: the KV cache goes in and out as flat tensors (empty on the first step)."""

    def __init__(self):
        super().__init__()
        self.layer = MarianDecoderLayer()

    def forward(self, hidden_states, encoder_hidden_states, past_self_key, past_self_value,
                past_cross_key, past_cross_value):
        past_key_value = (past_self_key, past_self_value, past_cross_key, past_cross_value)
        return self.layer(hidden_states, encoder_hidden_states, past_key_value)


def make_model():
    return DecoderStep().eval()


def _step(batch, src_len, past_len, cross_len):
    return (
        torch.randn(batch, 1, 32),
        torch.randn(batch, src_len, 32),
        torch.randn(batch, 4, past_len, 8),
        torch.randn(batch, 4, past_len, 8),
        torch.randn(batch, 4, cross_len, 8),
        torch.randn(batch, 4, cross_len, 8),
    )


def example_inputs():
    # a later step: the cross-attention cache already holds the encoder keys/values
    return _step(2, 7, 3, 7)


def other_inputs():
    # the first step (empty caches) and a later step of another sentence
    return [_step(3, 5, 0, 0), _step(1, 9, 4, 9)]


def probe_inputs():
    return other_inputs()
