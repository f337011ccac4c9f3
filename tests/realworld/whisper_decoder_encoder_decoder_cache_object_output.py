"""Whisper decoder with `use_cache=True` (transformers 4.5x): when no cache is passed it creates
`EncoderDecoderCache(DynamicCache(), DynamicCache())`, fills the self-attention cache and the cross-attention cache
(encoder keys/values, `is_updated` flags) layer by layer and returns that cache object among its outputs.
torch.export cannot flatten the unregistered `EncoderDecoderCache`, so onnx-diagnostic registers a pytree
serialization for it before exporting whisper.

Source: https://github.com/sdpython/onnx-diagnostic/pull/48
"""
from typing import List, Optional

import torch
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {
    "decoder_input_ids": {0: "batch", 1: "decoder_sequence"},
    "encoder_hidden_states": {0: "batch", 1: "encoder_sequence"},
}
BLIND = "domains-54"


class DynamicCache:
    def __init__(self) -> None:
        self._seen_tokens = 0
        self.key_cache: List[torch.Tensor] = []
        self.value_cache: List[torch.Tensor] = []

    def __len__(self):
        return len(self.key_cache)

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]


class EncoderDecoderCache:
    def __init__(self, self_attention_cache: DynamicCache, cross_attention_cache: DynamicCache):
        self.self_attention_cache = self_attention_cache
        self.cross_attention_cache = cross_attention_cache
        self.is_updated = {}
        for layer_idx in range(len(cross_attention_cache.key_cache)):
            self.is_updated[layer_idx] = bool(cross_attention_cache.get_seq_length(layer_idx) > 0)

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self.self_attention_cache.get_seq_length(layer_idx)


class WhisperAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, layer_idx):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.layer_idx = layer_idx
        self.k_proj = nn.Linear(embed_dim, embed_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def _shape(self, tensor, seq_len, bsz):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, hidden_states, key_value_states=None, past_key_value=None, attention_mask=None):
        is_cross_attention = key_value_states is not None
        bsz, tgt_len, _ = hidden_states.size()
        query_states = self._shape(self.q_proj(hidden_states) * self.scaling, tgt_len, bsz)

        if past_key_value is not None:
            is_updated = past_key_value.is_updated.get(self.layer_idx)
            if is_cross_attention:
                past_key_value.is_updated[self.layer_idx] = True
                past_key_value = past_key_value.cross_attention_cache
            else:
                past_key_value = past_key_value.self_attention_cache

        current_states = key_value_states if key_value_states is not None else hidden_states
        if is_cross_attention and past_key_value and is_updated:
            key_states = past_key_value.key_cache[self.layer_idx]
            value_states = past_key_value.value_cache[self.layer_idx]
        else:
            key_states = self._shape(self.k_proj(current_states), -1, bsz)
            value_states = self._shape(self.v_proj(current_states), -1, bsz)
            if past_key_value is not None:
                key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx)

        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, tgt_len, -1)
        return self.out_proj(attn_output)


class WhisperDecoderLayer(nn.Module):
    def __init__(self, d_model, heads, layer_idx):
        super().__init__()
        self.self_attn = WhisperAttention(d_model, heads, layer_idx)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.encoder_attn = WhisperAttention(d_model, heads, layer_idx)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, hidden_states, attention_mask, encoder_hidden_states, past_key_value):
        residual = hidden_states
        hidden_states = self.self_attn_layer_norm(hidden_states)
        hidden_states = residual + self.self_attn(hidden_states, past_key_value=past_key_value,
                                                  attention_mask=attention_mask)
        residual = hidden_states
        hidden_states = self.encoder_attn_layer_norm(hidden_states)
        hidden_states = residual + self.encoder_attn(hidden_states, key_value_states=encoder_hidden_states,
                                                     past_key_value=past_key_value)
        residual = hidden_states
        hidden_states = self.final_layer_norm(hidden_states)
        hidden_states = self.fc2(nn.functional.gelu(self.fc1(hidden_states)))
        return residual + hidden_states


class WhisperDecoder(nn.Module):
    def __init__(self, vocab_size=64, d_model=32, heads=4, layers=2, max_target_positions=64):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.embed_positions = nn.Embedding(max_target_positions, d_model)
        self.layers = nn.ModuleList([WhisperDecoderLayer(d_model, heads, i) for i in range(layers)])
        self.layer_norm = nn.LayerNorm(d_model)

    def forward(self, decoder_input_ids, encoder_hidden_states, past_key_values=None, use_cache=True):
        if use_cache and past_key_values is None:
            past_key_values = EncoderDecoderCache(DynamicCache(), DynamicCache())
        past_key_values_length = past_key_values.get_seq_length() if past_key_values is not None else 0
        tgt_len = decoder_input_ids.shape[1]
        positions = torch.arange(past_key_values_length, past_key_values_length + tgt_len,
                                 device=decoder_input_ids.device)
        hidden_states = self.embed_tokens(decoder_input_ids) + self.embed_positions(positions)
        causal_mask = torch.full((tgt_len, tgt_len), torch.finfo(hidden_states.dtype).min).triu(1)[None, None]
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(hidden_states, causal_mask, encoder_hidden_states,
                                          past_key_value=past_key_values if use_cache else None)
        hidden_states = self.layer_norm(hidden_states)
        next_cache = past_key_values if use_cache else None
        return hidden_states, next_cache


def make_model():
    return WhisperDecoder().eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 4)), torch.randn(2, 15, 32))


def other_inputs():
    return [(torch.randint(0, 64, (3, 7)), torch.randn(3, 20, 32)), (torch.randint(0, 64, (1, 2)), torch.randn(1, 9, 32))]


def probe_inputs():
    return other_inputs()
