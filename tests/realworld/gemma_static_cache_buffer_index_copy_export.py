"""Gemma-style decoder exported with transformers' `StaticCache` (the `test_static_cache_exportability` setup): the
cache is a module whose per-layer key/value tensors are registered buffers (also kept in `key_cache`/`value_cache`
lists and marked static), and every attention layer writes the new states in place with
`k_out.index_copy_(2, cache_position, key_states)` before attending over the whole `max_cache_len` cache. The report:
`torch.export` of the wrapper (`tokens`, `input_pos` -> logits) fails while executing that `index_copy_`
("RuntimeError: cannot mutate tensors with frozen storage").
(Two tiny attention-only layers instead of Gemma-2b; causal mask built from `cache_position` over the static length.)

Source: https://github.com/huggingface/transformers/issues/33178
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "state"
FAMILY = "views"
DYNAMIC = {"tokens": {1: "seq"}, "input_pos": {0: "seq"}}
BLIND = "domains-30"


class Cache(nn.Module):
    def __init__(self):
        super().__init__()


class StaticCache(Cache):
    def __init__(self, num_layers, max_batch_size, num_kv_heads, max_cache_len, head_dim, dtype=torch.float32):
        super().__init__()
        self.max_cache_len = max_cache_len
        self.key_cache = []
        self.value_cache = []
        cache_shape = (max_batch_size, num_kv_heads, max_cache_len, head_dim)
        for idx in range(num_layers):
            new_layer_key_cache = torch.zeros(cache_shape, dtype=dtype)
            new_layer_value_cache = torch.zeros(cache_shape, dtype=dtype)
            self.register_buffer(f"key_cache_{idx}", new_layer_key_cache)
            self.register_buffer(f"value_cache_{idx}", new_layer_value_cache)
            torch._dynamo.mark_static_address(new_layer_key_cache)
            torch._dynamo.mark_static_address(new_layer_value_cache)
            self.key_cache.append(new_layer_key_cache)
            self.value_cache.append(new_layer_value_cache)

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        cache_position = cache_kwargs.get("cache_position")
        k_out = self.key_cache[layer_idx]
        v_out = self.value_cache[layer_idx]
        if cache_position is None:
            k_out.copy_(key_states)
            v_out.copy_(value_states)
        else:
            try:
                k_out.index_copy_(2, cache_position, key_states)
                v_out.index_copy_(2, cache_position, value_states)
            except NotImplementedError:
                k_out[:, :, cache_position] = key_states
                v_out[:, :, cache_position] = value_states
        return k_out, v_out


class Attn(nn.Module):
    def __init__(self, idx, hidden=32, heads=4):
        super().__init__()
        self.layer_idx = idx
        self.h, self.d = heads, hidden // heads
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def forward(self, x, mask, past_key_value, cache_position):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.h, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.h, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.h, self.d).transpose(1, 2)
        k, v = past_key_value.update(k, v, self.layer_idx, {"cache_position": cache_position})
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, -1))


class TinyGemma(nn.Module):
    def __init__(self, vocab=64, hidden=32, layers=2, max_cache_len=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(Attn(i, hidden) for i in range(layers))
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.max_cache_len = max_cache_len

    def forward(self, input_ids, cache_position, past_key_values):
        h = self.embed(input_ids)
        kv_idx = torch.arange(self.max_cache_len)
        mask = kv_idx[None, :] <= cache_position[:, None]
        for layer in self.layers:
            h = h + layer(h, mask, past_key_values, cache_position)
        return self.lm_head(h)


class ExportableModule(nn.Module):
    def __init__(self, model, static_cache):
        super().__init__()
        self.model = model
        self.static_cache = static_cache

    def forward(self, tokens, input_pos):
        return self.model(tokens, input_pos, self.static_cache)


def make_model():
    m = TinyGemma().eval()
    return ExportableModule(m, StaticCache(2, 1, 4, 32, 8)).eval()


def example_inputs():
    return (torch.randint(0, 64, (1, 5)), torch.arange(5))


def other_inputs():
    return [(torch.randint(0, 64, (1, 9)), torch.arange(9)), (torch.randint(0, 64, (1, 3)), torch.arange(3))]


def probe_inputs():
    return other_inputs()
