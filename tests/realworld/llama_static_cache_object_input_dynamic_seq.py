"""HF Llama decoder exported with a transformers `StaticCache` passed as the `past_key_values` input
(the cache object holds per-layer key/value buffers that `update()` fills with `index_copy_` at
`cache_position`) and a dynamic sequence length; the report's torch.export fails with "Cannot associate
shape {} ... to non-tensor type StaticCache" and, with no shape for it, "Unsupported input type StaticCache.
Export only supports pytree containers of basic types". Reduced to one Llama layer with trimmed copies of
StaticCache, the rotary embedding and the causal mask built from cache_position.

Source: https://github.com/pytorch/pytorch/issues/152465
"""
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {1: "seq_len"}, "cache_position": {0: "seq_len"}}
BLIND = "domains-21"


class LlamaConfig:
    vocab_size = 64
    hidden_size = 32
    num_attention_heads = 4
    num_key_value_heads = 4
    num_hidden_layers = 1
    max_position_embeddings = 16
    rope_theta = 10000.0


class StaticCache:
    def __init__(self, config, max_batch_size, max_cache_len=None, device=None, dtype=torch.float32):
        self.max_batch_size = max_batch_size
        self.max_cache_len = config.max_position_embeddings if max_cache_len is None else max_cache_len
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.num_key_value_heads = config.num_key_value_heads
        self.key_cache = []
        self.value_cache = []
        cache_shape = (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
        for _ in range(config.num_hidden_layers):
            self.key_cache.append(torch.zeros(cache_shape, dtype=dtype, device=device))
            self.value_cache.append(torch.zeros(cache_shape, dtype=dtype, device=device))

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs is not None else None
        k_out = self.key_cache[layer_idx]
        v_out = self.value_cache[layer_idx]
        if cache_position is None:
            k_out.copy_(key_states)
            v_out.copy_(value_states)
        else:
            k_out.index_copy_(2, cache_position, key_states)
            v_out.index_copy_(2, cache_position, value_states)
        return k_out, v_out

    def get_max_cache_shape(self):
        return self.max_cache_len


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


class LlamaForCausalLM(nn.Module):
    def __init__(self, config=LlamaConfig()):
        super().__init__()
        self.config = config
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.q_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.k_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.v_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        inv_freq = 1.0 / (config.rope_theta ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, input_ids, cache_position, past_key_values):
        hidden_states = self.embed_tokens(input_ids)
        bsz, q_len, _ = hidden_states.size()
        position_ids = cache_position.unsqueeze(0)
        freqs = (self.inv_freq[None, :, None] @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().unsqueeze(1), emb.sin().unsqueeze(1)

        hidden_shape = (bsz, q_len, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        query_states = (query_states * cos) + (rotate_half(query_states) * sin)
        key_states = (key_states * cos) + (rotate_half(key_states) * sin)

        cache_kwargs = {"sin": sin, "cos": cos, "cache_position": cache_position}
        key_states, value_states = past_key_values.update(key_states, value_states, 0, cache_kwargs)

        target_length = past_key_values.get_max_cache_shape()
        causal_mask = torch.arange(target_length, device=input_ids.device) > cache_position.reshape(-1, 1)
        attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / self.head_dim**0.5
        attn_weights = attn_weights.masked_fill(causal_mask[None, None], torch.finfo(attn_weights.dtype).min)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2).reshape(bsz, q_len, -1)
        return self.lm_head(hidden_states + self.o_proj(attn_output))


def make_model():
    return LlamaForCausalLM().eval()


def _inputs(start, length):
    cache = StaticCache(LlamaConfig(), max_batch_size=1, max_cache_len=16)
    return (torch.randint(0, 64, (1, length)), torch.arange(start, start + length), cache)


def example_inputs():
    return _inputs(0, 5)


def other_inputs():
    # a longer prompt, and a later chunk written further into the cache
    return [_inputs(0, 9), _inputs(4, 3)]


def probe_inputs():
    return other_inputs()
