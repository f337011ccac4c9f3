"""Small decoder-only language model (book notebook CH04_NB02) exported with the legacy
`torch.onnx.export(model, inputs_sample, ..., input_names=['input_ids'])`: the causal-LM forward builds a
transformers `DynamicCache` (the export warns at cache_utils.py "torch.tensor results are registered as
constants" from the cache layer's lazy initialisation) and returns it next to the logits, and the export stops with
a RuntimeError. Reduced to a 2-layer Llama-style model with a minimal DynamicCache/DynamicLayer (no pytree registration).

Source: https://github.com/virtualramblas/Domain-Specific-Small-Language-Models/issues/7
"""
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-17"


class DynamicLayer:
    def __init__(self):
        self.keys = None
        self.values = None
        self.is_initialized = False

    def lazy_initialization(self, key_states):
        self.dtype, self.device = key_states.dtype, key_states.device
        self.keys = torch.tensor([], dtype=self.dtype, device=self.device)
        self.values = torch.tensor([], dtype=self.dtype, device=self.device)
        self.is_initialized = True

    def update(self, key_states, value_states):
        if not self.is_initialized:
            self.lazy_initialization(key_states)
        self.keys = torch.cat([self.keys, key_states], dim=-2)
        self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values


class DynamicCache:
    def __init__(self, num_layers):
        self.layers = [DynamicLayer() for _ in range(num_layers)]

    def update(self, key_states, value_states, layer_idx):
        return self.layers[layer_idx].update(key_states, value_states)

    def get_seq_length(self, layer_idx=0):
        if not self.layers[layer_idx].is_initialized:
            return 0
        return self.layers[layer_idx].keys.shape[-2]


class Attention(nn.Module):
    def __init__(self, hidden, heads, layer_idx):
        super().__init__()
        self.heads, self.head_dim, self.layer_idx = heads, hidden // heads, layer_idx
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def forward(self, hidden_states, past_key_values=None):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        q = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        k = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        v = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        if past_key_values is not None:
            k, v = past_key_values.update(k, v, self.layer_idx)
        out = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        out = out.transpose(1, 2).reshape(*input_shape, -1).contiguous()
        return self.o_proj(out)


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, layer_idx):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(hidden)
        self.self_attn = Attention(hidden, heads, layer_idx)
        self.post_attention_layernorm = nn.RMSNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.SiLU(), nn.Linear(2 * hidden, hidden))

    def forward(self, hidden_states, past_key_values=None):
        hidden_states = hidden_states + self.self_attn(self.input_layernorm(hidden_states), past_key_values)
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class SmallCausalLM(nn.Module):
    def __init__(self, vocab=100, hidden=32, heads=4, num_layers=2):
        super().__init__()
        self.num_layers = num_layers
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([DecoderLayer(hidden, heads, i) for i in range(num_layers)])
        self.norm = nn.RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids, past_key_values=None, use_cache=True):
        if use_cache and past_key_values is None:
            past_key_values = DynamicCache(self.num_layers)
        hidden_states = self.embed_tokens(input_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states, past_key_values)
        logits = self.lm_head(self.norm(hidden_states))
        return logits, past_key_values


def make_model():
    return SmallCausalLM().eval()


def example_inputs():
    return (torch.randint(0, 100, (1, 12)),)


def other_inputs():
    return [(torch.randint(0, 100, (2, 7)),), (torch.randint(0, 100, (3, 19)),)]


def probe_inputs():
    return other_inputs()
