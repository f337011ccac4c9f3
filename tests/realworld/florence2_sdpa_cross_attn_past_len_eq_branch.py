"""Florence-2 (microsoft Hub remote code, modeling_florence2.py): the BART-style text decoder's
`Florence2SdpaAttention` chooses its cross-attention keys/values with
`past_key_value[0].shape[2] == key_value_states.shape[1]` (reuse the cache) or else projects the encoder
states again. ailia's export of Florence-2 needed one decoder.onnx with the KV cache as inputs for the
first step (empty cache) and the later ones, and rewrote this branch before exporting, since the export
keeps only the branch the example inputs took.
(One decoder layer; the cache goes in and out as flat tensors.)

Source: https://github.com/ailia-ai/ailia-models/issues/1541
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "hidden_states": {0: "batch"},
    "encoder_hidden_states": {0: "batch", 1: "encoder_len"},
    "past_self_key": {0: "batch", 2: "past_len"},
    "past_self_value": {0: "batch", 2: "past_len"},
    "past_cross_key": {0: "batch", 2: "cross_len"},
    "past_cross_value": {0: "batch", 2: "cross_len"},
}
BLIND = "domains-55"


class Florence2Attention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, is_decoder=False, bias=True, is_causal=False):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.is_decoder = is_decoder
        self.is_causal = is_causal
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.q_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)

    def _shape(self, tensor: torch.Tensor, seq_len: int, bsz: int):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()


class Florence2SdpaAttention(Florence2Attention):
    def forward(
        self,
        hidden_states: torch.Tensor,
        key_value_states: Optional[torch.Tensor] = None,
        past_key_value: Optional[Tuple[torch.Tensor]] = None,
        attention_mask: Optional[torch.Tensor] = None,
    ):
        is_cross_attention = key_value_states is not None
        bsz, tgt_len, _ = hidden_states.size()

        # get query proj
        query_states = self.q_proj(hidden_states)
        # get key, value proj
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

        query_states = self._shape(query_states, tgt_len, bsz)
        is_causal = True if self.is_causal and attention_mask is None and tgt_len > 1 else False
        attn_output = torch.nn.functional.scaled_dot_product_attention(
            query_states, key_states, value_states, attn_mask=attention_mask,
            dropout_p=self.dropout if self.training else 0.0, is_causal=is_causal,
        )
        attn_output = attn_output.transpose(1, 2)
        attn_output = attn_output.reshape(bsz, tgt_len, self.embed_dim)
        attn_output = self.out_proj(attn_output)
        return attn_output, None, past_key_value


class Florence2DecoderLayer(nn.Module):
    def __init__(self, d_model=48, heads=4, ffn_dim=96):
        super().__init__()
        self.self_attn = Florence2SdpaAttention(d_model, heads, is_decoder=True, is_causal=True)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.encoder_attn = Florence2SdpaAttention(d_model, heads, is_decoder=True)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, hidden_states, encoder_hidden_states, past_key_value):
        residual = hidden_states
        self_attn_past_key_value = past_key_value[:2] if past_key_value is not None else None
        hidden_states, _, present_key_value = self.self_attn(
            hidden_states=hidden_states, past_key_value=self_attn_past_key_value)
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
        hidden_states = self.fc2(nn.functional.gelu(self.fc1(hidden_states)))
        hidden_states = self.final_layer_norm(residual + hidden_states)
        return (hidden_states,) + present_key_value


class Florence2DecoderStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = Florence2DecoderLayer()

    def forward(self, hidden_states, encoder_hidden_states, past_self_key, past_self_value,
                past_cross_key, past_cross_value):
        past_key_value = (past_self_key, past_self_value, past_cross_key, past_cross_value)
        return self.layer(hidden_states, encoder_hidden_states, past_key_value)


def make_model():
    return Florence2DecoderStep().eval()


def _step(batch, enc_len, past_len, cross_len):
    return (
        torch.randn(batch, 1, 48),
        torch.randn(batch, enc_len, 48),
        torch.randn(batch, 4, past_len, 12),
        torch.randn(batch, 4, past_len, 12),
        torch.randn(batch, 4, cross_len, 12),
        torch.randn(batch, 4, cross_len, 12),
    )


def example_inputs():
    # the first decoding step: empty caches, image+prompt encoder states
    return _step(2, 9, 0, 0)


def other_inputs():
    # later steps: the cross cache already holds the encoder keys/values
    return [_step(3, 11, 2, 11), _step(1, 6, 5, 6)]


def probe_inputs():
    return other_inputs()
