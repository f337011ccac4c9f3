"""QEfficient GPT-OSS hybrid KV cache: `from_legacy_cache` builds the cache with
`max_cache_len=int(past_key_values[1][0].shape[2]) if torch._dynamo.is_compiling() else ...` and
`sliding_window_len=int(past_key_values[0][0].shape[2]) ...`; the sliding layer then scatters new keys at
`position_ids % sliding_window`. The review of the dynamo ONNX export says the `int()` "causes sliding_window and
ctx_len to get baked into the graph and so the resulting graph was static in nature".
(Two attention layers, one sliding and one full; QEff's CtxScatter/CtxGather custom functions written as scatter/gather.)

Source: https://github.com/quic/efficient-transformers/pull/1263
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"},
           "past_key_0": {0: "batch", 2: "sliding_window_len"}, "past_value_0": {0: "batch", 2: "sliding_window_len"},
           "past_key_1": {0: "batch", 2: "ctx_len"}, "past_value_1": {0: "batch", 2: "ctx_len"}}
BLIND = "domains-29"


class QEffHybridCacheForGPTOSS:
    def __init__(self, config, max_cache_len, sliding_window_len):
        self.max_cache_len = max_cache_len
        self.sliding_window_len = sliding_window_len
        self.key_cache, self.value_cache = [], []

    @classmethod
    def from_legacy_cache(cls, config, past_key_values=None):
        cache = cls(
            config,
            max_cache_len=int(past_key_values[1][0].shape[2])
            if torch._dynamo.is_compiling()
            else past_key_values[1][0].shape[2],
            sliding_window_len=int(past_key_values[0][0].shape[2])
            if torch._dynamo.is_compiling()
            else past_key_values[0][0].shape[2],
        )
        for layer_idx in range(len(past_key_values)):
            key_states, value_states = past_key_values[layer_idx]
            cache.key_cache.append(key_states)
            cache.value_cache.append(value_states)
        return cache

    def update(self, key_states, value_states, layer_idx, cache_kwargs):
        position_ids = cache_kwargs.get("position_ids")
        is_sliding_layer = cache_kwargs.get("is_sliding")
        sliding_window = cache_kwargs.get("sliding_window")
        if is_sliding_layer:
            kv_position_ids = torch.where(position_ids == -1, position_ids, position_ids % sliding_window)
        else:
            kv_position_ids = position_ids
        idx = kv_position_ids.clamp(min=0)[:, None, :, None].expand_as(key_states)
        self.key_cache[layer_idx] = self.key_cache[layer_idx].scatter(2, idx, key_states)
        self.value_cache[layer_idx] = self.value_cache[layer_idx].scatter(2, idx, value_states)
        k_out, v_out = self.key_cache[layer_idx], self.value_cache[layer_idx]
        ctx_len = k_out.shape[2]
        ctx_indices = torch.arange(ctx_len)[None, None, ...]
        gather_limit = position_ids.max(1, keepdim=True).values.unsqueeze(1)
        invalid_mask = ctx_indices > gather_limit
        v_out = torch.where(invalid_mask.unsqueeze(-1), torch.tensor(0.0, dtype=torch.float32), v_out)
        return k_out, v_out


class GptOssAttention(nn.Module):
    def __init__(self, layer_idx, hidden=32, heads=2, sliding=False):
        super().__init__()
        self.layer_idx, self.heads, self.head_dim, self.sliding = layer_idx, heads, hidden // heads, sliding
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.o_proj = nn.Linear(hidden, hidden)

    def forward(self, hidden_states, position_ids, past_key_value):
        b, s, _ = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(b, s, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        cache_kwargs = {"position_ids": position_ids, "is_sliding": self.sliding,
                        "sliding_window": past_key_value.sliding_window_len}
        k, v = past_key_value.update(k, v, self.layer_idx, cache_kwargs)
        attn = torch.softmax(q @ k.transpose(-1, -2) / self.head_dim ** 0.5, dim=-1) @ v
        return self.o_proj(attn.transpose(1, 2).reshape(b, s, -1))


class GptOssModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = None
        self.layers = nn.ModuleList([GptOssAttention(0, sliding=True), GptOssAttention(1, sliding=False)])

    def forward(self, hidden_states, position_ids, past_key_0, past_value_0, past_key_1, past_value_1):
        past_key_values = QEffHybridCacheForGPTOSS.from_legacy_cache(
            self.config, ((past_key_0, past_value_0), (past_key_1, past_value_1)))
        for layer in self.layers:
            hidden_states = hidden_states + layer(hidden_states, position_ids, past_key_values)
        return (hidden_states, *past_key_values.key_cache, *past_key_values.value_cache)


def make_model():
    return GptOssModel().eval()


def _inputs(b, s, start, window, ctx):
    pos = torch.arange(start, start + s).expand(b, s).contiguous()
    return (torch.randn(b, s, 32), pos,
            torch.randn(b, 2, window, 16), torch.randn(b, 2, window, 16),
            torch.randn(b, 2, ctx, 16), torch.randn(b, 2, ctx, 16))


def example_inputs():
    return _inputs(2, 3, 5, 8, 16)


def other_inputs():
    return [_inputs(3, 4, 9, 6, 24), _inputs(1, 2, 3, 12, 20)]


def probe_inputs():
    return other_inputs()
