"""Gemma decoder with a `StaticCache` (an `nn.Module` holding per-layer key/value buffers updated in place
with `index_copy_` at `cache_position`) configured at model construction; the forward returns the logits
together with `past_key_values`, i.e. the StaticCache object itself. The PR reports torch.export fails with
"It looks like one of the outputs with type `StaticCache` is not supported or pytree-flattenable".

Source: https://github.com/huggingface/transformers/pull/32830
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {1: "seq"}, "cache_position": {0: "seq"}}
BLIND = "domains-32"


class StaticCache(nn.Module):
    def __init__(self, num_layers, max_batch_size, num_heads, max_cache_len, head_dim):
        super().__init__()
        cache_shape = (max_batch_size, num_heads, max_cache_len, head_dim)
        for i in range(num_layers):
            self.register_buffer(f"key_cache_{i}", torch.zeros(cache_shape), persistent=False)
            self.register_buffer(f"value_cache_{i}", torch.zeros(cache_shape), persistent=False)

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        cache_position = cache_kwargs.get("cache_position")
        k_out = getattr(self, f"key_cache_{layer_idx}")
        v_out = getattr(self, f"value_cache_{layer_idx}")
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        return k_out, v_out


class GemmaAttention(nn.Module):
    def __init__(self, hidden, heads, layer_idx):
        super().__init__()
        self.heads, self.head_dim, self.layer_idx = heads, hidden // heads, layer_idx
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def forward(self, hidden_states, attention_mask, cache_position, past_key_value):
        bsz, q_len, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        cache_kwargs = {"cache_position": cache_position}
        k, v = past_key_value.update(k, v, self.layer_idx, cache_kwargs)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask)
        return self.o_proj(out.transpose(1, 2).reshape(bsz, q_len, -1))


class GemmaForCausalLM(nn.Module):
    def __init__(self, vocab=64, hidden=32, heads=4, layers=2, max_batch_size=1, max_cache_len=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([GemmaAttention(hidden, heads, i) for i in range(layers)])
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.max_cache_len = max_cache_len
        # cache_implementation == "static": the cache is created with the model
        self.static_cache = StaticCache(layers, max_batch_size, heads, max_cache_len, hidden // heads)

    def forward(self, input_ids, cache_position):
        past_key_values = self.static_cache
        hidden_states = self.embed_tokens(input_ids)
        causal_mask = torch.arange(self.max_cache_len)[None, :] <= cache_position[:, None]
        for layer in self.layers:
            hidden_states = hidden_states + layer(hidden_states, causal_mask, cache_position, past_key_values)
        logits = self.lm_head(hidden_states)
        return logits, past_key_values


def make_model():
    return GemmaForCausalLM().eval()


def _step(start, length):
    return (torch.randint(0, 64, (1, length)), torch.arange(start, start + length))


def example_inputs():
    return _step(0, 5)


def other_inputs():
    return [_step(5, 3), _step(0, 9)]


def probe_inputs():
    return other_inputs()
