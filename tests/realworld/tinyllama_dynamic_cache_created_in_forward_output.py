"""TinyLlama causal LM exported with only `input_ids`: with `use_cache=True` the forward creates a fresh
`DynamicCache()` (plain Python object holding per-layer key/value lists that `update` grows with `torch.cat`)
and returns it next to the logits. A user in the thread reports torch.export failing with "Found <class
'transformers.cache_utils.DynamicCache'> in output, which is not a known type. If this type holds tensors,
you need to register a pytree for it".

Source: https://github.com/pytorch/pytorch/issues/136582
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-32"


class DynamicCache:
    def __init__(self):
        self.key_cache = []
        self.value_cache = []

    def update(self, key_states, value_states, layer_idx):
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx=0):
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]


class LlamaAttention(nn.Module):
    def __init__(self, hidden_size, num_heads, layer_idx):
        super().__init__()
        self.num_heads, self.head_dim, self.layer_idx = num_heads, hidden_size // num_heads, layer_idx
        self.q_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.k_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states, past_key_value=None):
        bsz, q_len, _ = hidden_states.size()
        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        if past_key_value is not None:
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx)
        attn_output = F.scaled_dot_product_attention(query_states, key_states, value_states, is_causal=True)
        return self.o_proj(attn_output.transpose(1, 2).reshape(bsz, q_len, -1))


class LlamaForCausalLM(nn.Module):
    def __init__(self, vocab_size=64, hidden_size=32, num_heads=4, num_layers=2, use_cache=True):
        super().__init__()
        self.use_cache = use_cache
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([LlamaAttention(hidden_size, num_heads, i) for i in range(num_layers)])
        self.norm = nn.LayerNorm(hidden_size)
        self.lm_head = nn.Linear(hidden_size, vocab_size, bias=False)

    def forward(self, input_ids, past_key_values=None):
        if self.use_cache and past_key_values is None:
            past_key_values = DynamicCache()
        hidden_states = self.embed_tokens(input_ids)
        for decoder_layer in self.layers:
            hidden_states = hidden_states + decoder_layer(hidden_states, past_key_value=past_key_values)
        logits = self.lm_head(self.norm(hidden_states))
        return logits, past_key_values


def make_model():
    return LlamaForCausalLM().eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 7)),)


def other_inputs():
    return [(torch.randint(0, 64, (3, 12)),), (torch.randint(0, 64, (1, 4)),)]


def probe_inputs():
    return other_inputs()
