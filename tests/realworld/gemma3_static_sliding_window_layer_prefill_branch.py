"""Gemma-3 style sliding-window attention on transformers' `StaticSlidingWindowLayer`: a prefill writes the prompt
into a window-sized static cache unless `cumulative_length + key_states.shape[2] > self.max_cache_len`, in which case
the full states are returned and only the last `max_cache_len` kept. The report: exporting with a dynamic prompt
length "bakes a `<= sliding_window` guard into the exported graph", so prompts longer than the window (750 tokens
vs a 512 window) do not run / give wrong output.
(One attention layer; a fresh cache per call, as the single exported prefill sees it; window 8 instead of 512.)

Source: https://github.com/huggingface/optimum-executorch/issues/218
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "cache_position": {0: "seq"}}
BLIND = "domains-29"


class StaticSlidingWindowLayer:
    is_sliding = True

    def __init__(self, max_cache_len: int, sliding_window: int):
        self.max_cache_len = min(sliding_window, max_cache_len)
        self.cumulative_length = 0
        self.is_initialized = False

    def lazy_initialization(self, key_states):
        b, h, _, d = key_states.shape
        self.keys = torch.zeros((b, h, self.max_cache_len, d), dtype=key_states.dtype)
        self.values = torch.zeros((b, h, self.max_cache_len, d), dtype=key_states.dtype)
        self.is_initialized = True

    def update(self, key_states, value_states, cache_kwargs=None):
        if not self.is_initialized:
            self.lazy_initialization(key_states)
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        cumulative_length = self.cumulative_length
        is_full = cumulative_length >= self.max_cache_len
        self.cumulative_length += key_states.shape[-2]
        if is_full:
            full_key_states = torch.cat((self.keys[:, :, 1:, :], key_states), dim=-2)
            full_value_states = torch.cat((self.values[:, :, 1:, :], value_states), dim=-2)
        elif cumulative_length + key_states.shape[2] > self.max_cache_len:
            if cumulative_length == 0:
                full_key_states = key_states
                full_value_states = value_states
            else:
                full_key_states = torch.cat((self.keys[:, :, :cumulative_length, :], key_states), dim=-2)
                full_value_states = torch.cat((self.values[:, :, :cumulative_length, :], value_states), dim=-2)
        else:
            self.keys.index_copy_(2, cache_position, key_states)
            self.values.index_copy_(2, cache_position, value_states)
            return self.keys, self.values
        self.keys.copy_(full_key_states[:, :, -self.max_cache_len :, :])
        self.values.copy_(full_value_states[:, :, -self.max_cache_len :, :])
        return full_key_states, full_value_states


class Gemma3SlidingAttention(nn.Module):
    def __init__(self, hidden=32, heads=2, sliding_window=8, max_cache_len=64):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.sliding_window, self.max_cache_len = sliding_window, max_cache_len
        self.q_proj, self.k_proj, self.v_proj = (nn.Linear(hidden, hidden) for _ in range(3))
        self.o_proj = nn.Linear(hidden, hidden)

    def forward(self, hidden_states, cache_position):
        b, s, _ = hidden_states.shape
        q, k, v = (p(hidden_states).view(b, s, self.heads, self.head_dim).transpose(1, 2)
                   for p in (self.q_proj, self.k_proj, self.v_proj))
        past_key_value = StaticSlidingWindowLayer(self.max_cache_len, self.sliding_window)
        k, v = past_key_value.update(k, v, {"cache_position": cache_position})
        kv_length = k.shape[-2]
        kv_idx = torch.arange(kv_length)[None, :]
        q_idx = cache_position[:, None]
        mask = (kv_idx <= q_idx) & (q_idx - kv_idx < self.sliding_window)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.o_proj(out.transpose(1, 2).reshape(b, s, -1))


def make_model():
    return Gemma3SlidingAttention().eval()


def example_inputs():
    return (torch.randn(2, 5, 32), torch.arange(5))


def other_inputs():
    return [(torch.randn(3, 12, 32), torch.arange(12)), (torch.randn(1, 3, 32), torch.arange(3))]


def probe_inputs():
    return other_inputs()
