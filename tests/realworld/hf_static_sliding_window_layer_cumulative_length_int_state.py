"""Decode step of a sliding-window attention layer over transformers' `StaticSlidingWindowLayer` (static KV
cache for Mistral / GPT-OSS style sliding layers). The layer keeps `cumulative_length` as a plain Python int,
bumps it in `update` (`self.cumulative_length += key_states.shape[-2]`) and branches on it (`is_full`, the
becoming-full path); `get_mask_sizes` derives `(kv_length, kv_offset)` from it as Python ints. The report:
dynamo treats `self.cumulative_length` as a constant and guards on its value (`cumulative_length == 71`, `== 72`,
...), so every decode step needs a new graph; an exported decode step keeps the one value it was captured with.
(One tiny layer, window 8, the cache already holding a 6-token prompt; the cache object lives on the module and its
tensors are registered as buffers, as in transformers' static-cache export wrapper.)

Source: https://github.com/huggingface/transformers/issues/44609
"""
from typing import Any, Optional

import torch
from torch import nn

CLASS = "state"
FAMILY = "scalars"
DYNAMIC = {}
BLIND = "domains-37"


class StaticLayer:
    is_sliding = False

    def __init__(self, max_cache_len: int):
        self.max_cache_len = max_cache_len
        self.keys, self.values = None, None
        self.is_initialized = False

    def lazy_initialization(self, key_states: torch.Tensor):
        self.dtype, self.device = key_states.dtype, key_states.device
        self.max_batch_size, self.num_heads, _, self.head_dim = key_states.shape
        self.keys = torch.zeros(
            (self.max_batch_size, self.num_heads, self.max_cache_len, self.head_dim), dtype=self.dtype, device=self.device
        )
        self.values = torch.zeros(
            (self.max_batch_size, self.num_heads, self.max_cache_len, self.head_dim), dtype=self.dtype, device=self.device
        )
        self.is_initialized = True


class StaticSlidingWindowLayer(StaticLayer):
    is_sliding = True

    def __init__(self, max_cache_len: int, sliding_window: int):
        effective_max_cache_len = min(sliding_window, max_cache_len)
        super().__init__(max_cache_len=effective_max_cache_len)
        self.cumulative_length = 0

    def update(self, key_states, value_states, cache_kwargs: Optional[dict[str, Any]] = None):
        # Lazy initialization
        if not self.is_initialized:
            self.lazy_initialization(key_states)

        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        cache_position = (
            cache_position if cache_position is not None else torch.arange(key_states.shape[-2], device=self.device)
        )

        cumulative_length = self.cumulative_length
        is_full = cumulative_length >= self.max_cache_len
        # Update it now that we saved the value above
        self.cumulative_length += key_states.shape[-2]

        if is_full:
            if key_states.shape[-2] == 1:
                # Roll all values to the left by 1 position
                new_keys = self.keys.roll(-1, dims=-2)
                new_values = self.values.roll(-1, dims=-2)
                # Overwrite the last position with new states
                index = torch.tensor([-1], dtype=int, device=self.device)
                new_keys[:, :, index] = key_states
                new_values[:, :, index] = value_states

                # Copy back into `self` (do not just assign again) in order to keep the static dynamo address
                self.keys.copy_(new_keys)
                self.values.copy_(new_values)
                return self.keys, self.values
            else:
                full_key_states = torch.cat((self.keys[:, :, 1:, :], key_states), dim=-2)
                full_value_states = torch.cat((self.values[:, :, 1:, :], value_states), dim=-2)
        # Not yet full, but becoming full on this update
        elif cumulative_length + key_states.shape[2] > self.max_cache_len:
            if cumulative_length == 0:
                full_key_states = key_states
                full_value_states = value_states
            else:
                full_key_states = torch.cat((self.keys[:, :, :cumulative_length, :], key_states), dim=-2)
                full_value_states = torch.cat((self.values[:, :, :cumulative_length, :], value_states), dim=-2)
        else:
            try:
                self.keys.index_copy_(2, cache_position, key_states)
                self.values.index_copy_(2, cache_position, value_states)
            except NotImplementedError:
                self.keys[:, :, cache_position] = key_states
                self.values[:, :, cache_position] = value_states
            return self.keys, self.values

        # We only cache the last `sliding_window` tokens
        self.keys.copy_(full_key_states[:, :, -self.max_cache_len :, :])
        self.values.copy_(full_value_states[:, :, -self.max_cache_len :, :])
        return full_key_states, full_value_states

    def get_mask_sizes(self, cache_position: torch.Tensor) -> tuple[int, int]:
        """Return the length and offset of the cache, used to generate the attention mask"""
        query_length = cache_position.shape[0]
        sliding_window = self.max_cache_len
        is_full = self.cumulative_length >= self.max_cache_len

        kv_offset = max(self.cumulative_length - sliding_window + 1, 0)
        if is_full:
            kv_length = sliding_window + query_length - 1
        elif self.cumulative_length + query_length > sliding_window:
            kv_length = self.cumulative_length + query_length
        else:
            kv_length = sliding_window

        return kv_length, kv_offset


def sliding_window_causal_mask(cache_position, kv_length, kv_offset, sliding_window):
    q_idx = cache_position[:, None]
    kv_idx = torch.arange(kv_length, device=cache_position.device)[None, :] + kv_offset
    return (kv_idx <= q_idx) & (kv_idx > q_idx - sliding_window)


class SlidingAttentionDecoderLayer(nn.Module):
    def __init__(self, hidden_size=32, num_heads=2, sliding_window=8, max_cache_len=32):
        super().__init__()
        self.num_heads, self.head_dim, self.sliding_window = num_heads, hidden_size // num_heads, sliding_window
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.cache_layer = StaticSlidingWindowLayer(max_cache_len=max_cache_len, sliding_window=sliding_window)

    def forward(self, hidden_states, cache_position):
        bsz, q_len, _ = hidden_states.shape
        shape = (bsz, q_len, self.num_heads, self.head_dim)
        query_states = self.q_proj(hidden_states).view(shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(shape).transpose(1, 2)

        kv_length, kv_offset = self.cache_layer.get_mask_sizes(cache_position)
        mask = sliding_window_causal_mask(cache_position, kv_length, kv_offset, self.sliding_window)
        key_states, value_states = self.cache_layer.update(key_states, value_states, {"cache_position": cache_position})

        attn = nn.functional.scaled_dot_product_attention(query_states, key_states, value_states, attn_mask=mask[None, None])
        attn = attn.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(attn)


def make_model():
    model = SlidingAttentionDecoderLayer().eval()
    with torch.no_grad():  # prefill: the cache already holds a 6-token prompt
        model(torch.randn(1, 6, 32), torch.arange(6))
    # as transformers' static-cache export wrapper does: the cache tensors are registered as (non-persistent) buffers
    model.register_buffer("key_cache", model.cache_layer.keys, persistent=False)
    model.register_buffer("value_cache", model.cache_layer.values, persistent=False)
    return model


def example_inputs():
    return (torch.randn(1, 1, 32), torch.tensor([6]))


def other_inputs():
    return [(torch.randn(1, 1, 32), torch.tensor([7])), (torch.randn(1, 1, 32), torch.tensor([8]))]


def probe_inputs():
    return other_inputs()
