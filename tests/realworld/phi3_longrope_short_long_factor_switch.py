"""Phi-3 / Phi-3.5 decoder attention with LongRoPE: transformers' `dynamic_rope_update` decorator picks the
short-factor or long-factor inverse frequencies per forward pass from `seq_len = torch.max(position_ids) + 1`
compared with `original_max_position_embeddings`. Optimum-intel reports that the traced (TorchScript, "I guess onnx
has the same issue") export cannot capture that condition: the exported model keeps the factor set of the export
input and is wrong once a prompt is longer than original_max_position_embeddings.

Source: https://github.com/huggingface/optimum-intel/pull/913
"""
import math
from functools import wraps

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "position_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-9"


class Phi3Config:
    vocab_size = 128
    hidden_size = 64
    num_attention_heads = 4
    rope_theta = 10000.0
    max_position_embeddings = 64
    original_max_position_embeddings = 16
    rope_scaling = {"type": "longrope",
                    "short_factor": [1.0, 1.01, 1.02, 1.03, 1.05, 1.1, 1.2, 1.3],
                    "long_factor": [1.0, 1.5, 2.5, 4.0, 8.0, 16.0, 32.0, 64.0]}


# ---- transformers/modeling_rope_utils.py (v4.57), trimmed to longrope ----
def _compute_longrope_parameters(config, device, seq_len=None):
    base = config.rope_theta
    head_dim = config.hidden_size // config.num_attention_heads
    dim = int(head_dim)
    long_factor = config.rope_scaling["long_factor"]
    short_factor = config.rope_scaling["short_factor"]
    attention_factor = config.rope_scaling.get("attention_factor")
    original_max_position_embeddings = config.original_max_position_embeddings
    factor = config.max_position_embeddings / config.original_max_position_embeddings
    if attention_factor is None:
        if factor <= 1.0:
            attention_factor = 1.0
        else:
            attention_factor = math.sqrt(1 + math.log(factor) / math.log(original_max_position_embeddings))
    if seq_len and seq_len > original_max_position_embeddings:
        ext_factors = torch.tensor(long_factor, dtype=torch.float32, device=device)
    else:
        ext_factors = torch.tensor(short_factor, dtype=torch.float32, device=device)
    inv_freq_shape = torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim
    inv_freq = 1.0 / (ext_factors * base**inv_freq_shape)
    return inv_freq, attention_factor


def longrope_frequency_update(self, position_ids, device):
    seq_len = torch.max(position_ids) + 1
    original_max_position_embeddings = self.config.original_max_position_embeddings
    if seq_len > original_max_position_embeddings:
        if not hasattr(self, "long_inv_freq"):
            self.long_inv_freq, _ = self.rope_init_fn(self.config, device, seq_len=original_max_position_embeddings + 1)
        self.register_buffer("inv_freq", self.long_inv_freq, persistent=False)
    else:
        self.original_inv_freq = self.original_inv_freq.to(device)
        self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)


def dynamic_rope_update(rope_forward):
    @wraps(rope_forward)
    def wrapper(self, x, position_ids):
        if self.rope_type == "longrope":
            longrope_frequency_update(self, position_ids, device=x.device)
        return rope_forward(self, x, position_ids)
    return wrapper


# ---- transformers/models/phi3/modeling_phi3.py, trimmed ----
class Phi3RotaryEmbedding(nn.Module):
    def __init__(self, config, device=None):
        super().__init__()
        self.rope_type = config.rope_scaling.get("rope_type", config.rope_scaling.get("type"))
        self.config = config
        self.rope_init_fn = _compute_longrope_parameters
        inv_freq, self.attention_scaling = self.rope_init_fn(self.config, device)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    @torch.no_grad()
    @dynamic_rope_update
    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1).to(x.device)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class Phi3Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.qkv_proj = nn.Linear(config.hidden_size, 3 * config.hidden_size, bias=False)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)

    def forward(self, hidden_states, position_embeddings):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        qkv = self.qkv_proj(hidden_states)
        query_states, key_states, value_states = qkv.chunk(3, dim=-1)
        query_states = query_states.view(hidden_shape).transpose(1, 2)
        key_states = key_states.view(hidden_shape).transpose(1, 2)
        value_states = value_states.view(hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output = nn.functional.scaled_dot_product_attention(query_states, key_states, value_states, is_causal=True)
        attn_output = attn_output.transpose(1, 2).reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class Phi3TinyLM(nn.Module):
    def __init__(self, config=Phi3Config()):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.rotary_emb = Phi3RotaryEmbedding(config)
        self.self_attn = Phi3Attention(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids, position_ids):
        hidden_states = self.embed_tokens(input_ids)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        hidden_states = hidden_states + self.self_attn(hidden_states, position_embeddings)
        return self.lm_head(hidden_states)


def make_model():
    return Phi3TinyLM().eval()


def _inputs(batch, seq):
    return (torch.randint(0, 128, (batch, seq)), torch.arange(seq).unsqueeze(0).expand(batch, seq).contiguous())


def example_inputs():
    return _inputs(2, 8)


def other_inputs():
    return [_inputs(1, 24), _inputs(3, 5)]


def probe_inputs():
    return other_inputs()
