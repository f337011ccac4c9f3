"""Whisper decoder-with-past export (optimum): the cross-attention reuses the cached encoder keys/values only
`if is_cross_attention and past_key_value is not None and past_key_value[0].shape[2] == key_value_states.shape[1]`;
with export dummies whose cached cross-attention length differed from the encoder-states length, the exporter
followed the `elif is_cross_attention` branch, so "the cross attention key values are not exported as input in the
ONNX model" and the decoder recomputes them from the encoder states whatever cache it is given.

Source: https://github.com/huggingface/optimum/pull/629
"""
from typing import Optional, Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "hidden_states": {0: "batch_size"},
    "encoder_hidden_states": {0: "batch_size", 1: "encoder_sequence_length"},
    "past_self_key": {0: "batch_size", 2: "past_decoder_sequence_length"},
    "past_self_value": {0: "batch_size", 2: "past_decoder_sequence_length"},
    "past_cross_key": {0: "batch_size", 2: "encoder_sequence_length_out"},
    "past_cross_value": {0: "batch_size", 2: "encoder_sequence_length_out"},
}
BLIND = "domains-10"


class WhisperAttention(nn.Module):
    """Multi-headed attention from 'Attention Is All You Need' paper"""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, is_decoder: bool = False, bias: bool = True):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.is_decoder = is_decoder
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)
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
        # if key_value_states are provided this layer is used as a cross-attention layer
        # for the decoder
        is_cross_attention = key_value_states is not None

        bsz, tgt_len, _ = hidden_states.size()

        # get query proj
        query_states = self.q_proj(hidden_states) * self.scaling
        # get key, value proj
        # `past_key_value[0].shape[2] == key_value_states.shape[1]`
        # is checking that the `sequence_length` of the `past_key_value` is the same as
        # the provided `key_value_states` to support prefix tuning
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
        key_states = key_states.view(*proj_shape)
        value_states = value_states.view(*proj_shape)

        src_len = key_states.size(1)
        attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))

        if attn_weights.size() != (bsz * self.num_heads, tgt_len, src_len):
            raise ValueError(
                f"Attention weights should be of size {(bsz * self.num_heads, tgt_len, src_len)}, but is"
                f" {attn_weights.size()}"
            )

        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_probs = nn.functional.dropout(attn_weights, p=self.dropout, training=self.training)
        attn_output = torch.bmm(attn_probs, value_states)

        attn_output = attn_output.view(bsz, self.num_heads, tgt_len, self.head_dim)
        attn_output = attn_output.transpose(1, 2)
        attn_output = attn_output.reshape(bsz, tgt_len, self.embed_dim)
        attn_output = self.out_proj(attn_output)
        return attn_output, None, past_key_value


class WhisperDecoderLayer(nn.Module):
    def __init__(self, d_model=32, heads=4, ffn_dim=64):
        super().__init__()
        self.self_attn = WhisperAttention(d_model, heads, is_decoder=True)
        self.activation_fn = nn.GELU()
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.encoder_attn = WhisperAttention(d_model, heads, is_decoder=True)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, hidden_states, attention_mask=None, encoder_hidden_states=None, past_key_value=None):
        residual = hidden_states
        hidden_states = self.self_attn_layer_norm(hidden_states)

        # Self Attention
        # decoder uni-directional self-attention cached key/values tuple is at positions 1,2
        self_attn_past_key_value = past_key_value[:2] if past_key_value is not None else None
        hidden_states, self_attn_weights, present_key_value = self.self_attn(
            hidden_states=hidden_states, past_key_value=self_attn_past_key_value, attention_mask=attention_mask)
        hidden_states = residual + hidden_states

        # Cross-Attention Block
        if encoder_hidden_states is not None:
            residual = hidden_states
            hidden_states = self.encoder_attn_layer_norm(hidden_states)
            # cross_attn cached key/values tuple is at positions 3,4 of present_key_value tuple
            cross_attn_past_key_value = past_key_value[-2:] if past_key_value is not None else None
            hidden_states, cross_attn_weights, cross_attn_present_key_value = self.encoder_attn(
                hidden_states=hidden_states, key_value_states=encoder_hidden_states,
                past_key_value=cross_attn_past_key_value)
            hidden_states = residual + hidden_states
            # add cross-attn to positions 3,4 of present_key_value tuple
            present_key_value = present_key_value + cross_attn_present_key_value

        # Fully Connected
        residual = hidden_states
        hidden_states = self.final_layer_norm(hidden_states)
        hidden_states = self.activation_fn(self.fc1(hidden_states))
        hidden_states = self.fc2(hidden_states)
        hidden_states = residual + hidden_states
        return hidden_states, present_key_value


class WhisperDecoderWithPast(nn.Module):
    """decoder_with_past_model: one new token, cached self- and cross-attention keys/values as inputs."""

    def __init__(self):
        super().__init__()
        self.layer = WhisperDecoderLayer()

    def forward(self, hidden_states, encoder_hidden_states, past_self_key, past_self_value, past_cross_key,
                past_cross_value):
        past_key_value = (past_self_key, past_self_value, past_cross_key, past_cross_value)
        hidden_states, present = self.layer(hidden_states, encoder_hidden_states=encoder_hidden_states,
                                            past_key_value=past_key_value)
        return hidden_states, present[0], present[1]


def make_model():
    return WhisperDecoderWithPast().eval()


def _inputs(batch, enc_len, past_len, cross_len):
    return (
        torch.randn(batch, 1, 32),
        torch.randn(batch, enc_len, 32),
        torch.randn(batch, 4, past_len, 8),
        torch.randn(batch, 4, past_len, 8),
        torch.randn(batch, 4, cross_len, 8),
        torch.randn(batch, 4, cross_len, 8),
    )


def example_inputs():
    # export dummies: encoder_sequence_length 16, cached cross-attention length 8 (encoder_sequence_length / 2)
    return _inputs(2, 16, 3, 8)


def other_inputs():
    # decoding: the cached cross-attention keys/values have the encoder output's length
    return [_inputs(3, 10, 5, 10), _inputs(1, 20, 7, 20)]


def probe_inputs():
    return other_inputs()
