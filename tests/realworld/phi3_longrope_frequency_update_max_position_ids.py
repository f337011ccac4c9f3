"""Phi-3 LongRoPE rotary embedding (transformers' `@dynamic_rope_update`): before each forward,
`seq_len = torch.max(position_ids) + 1` picks long or short inv_freq with a Python `if` and
re-registers the buffer, a branch on tensor data that export fixes at trace time; optimum-intel
patches it into a torch.where in the graph.

Source: https://github.com/huggingface/optimum-intel/pull/1504
"""
import math
from functools import wraps

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "sequence"}, "position_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-44"


class Config:
    hidden_size = 64
    num_attention_heads = 4
    rope_theta = 10000.0
    max_position_embeddings = 128
    original_max_position_embeddings = 16
    rope_scaling = {"type": "longrope",
                    "short_factor": [1.0 + 0.01 * i for i in range(8)],
                    "long_factor": [1.0 + 0.5 * i for i in range(8)]}


def _compute_longrope_parameters(config, device, seq_len=None):
    base = config.rope_theta
    dim = config.hidden_size // config.num_attention_heads
    long_factor = config.rope_scaling["long_factor"]
    short_factor = config.rope_scaling["short_factor"]
    factor = config.max_position_embeddings / config.original_max_position_embeddings
    attention_factor = math.sqrt(1 + math.log(factor) / math.log(config.original_max_position_embeddings))
    if seq_len and seq_len > config.original_max_position_embeddings:
        ext_factors = torch.tensor(long_factor, dtype=torch.float32, device=device)
    else:
        ext_factors = torch.tensor(short_factor, dtype=torch.float32, device=device)
    inv_freq_shape = torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim
    inv_freq = 1.0 / (ext_factors * base**inv_freq_shape)
    return inv_freq, attention_factor


def dynamic_rope_update(rope_forward):
    def longrope_frequency_update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if hasattr(self.config, "original_max_position_embeddings"):
            original_max_position_embeddings = self.config.original_max_position_embeddings
        else:
            original_max_position_embeddings = self.config.max_position_embeddings
        if seq_len > original_max_position_embeddings:
            if not hasattr(self, "long_inv_freq"):
                self.long_inv_freq, _ = self.rope_init_fn(
                    self.config, device, seq_len=original_max_position_embeddings + 1
                )
            self.register_buffer("inv_freq", self.long_inv_freq, persistent=False)
        else:
            self.original_inv_freq = self.original_inv_freq.to(device)
            self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)

    @wraps(rope_forward)
    def wrapper(self, x, position_ids):
        if self.rope_type == "longrope":
            longrope_frequency_update(self, position_ids, device=x.device)
        return rope_forward(self, x, position_ids)

    return wrapper


class Phi3RotaryEmbedding(nn.Module):
    def __init__(self, config, device=None):
        super().__init__()
        self.rope_type = config.rope_scaling["type"]
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


def make_model():
    return Phi3RotaryEmbedding(Config()).eval()


def _inputs(b, n, start):
    x = torch.randn(b, n, 64)
    position_ids = (torch.arange(n) + start).unsqueeze(0).expand(b, -1).contiguous()
    return (x, position_ids)


def example_inputs():
    return _inputs(2, 10, 0)


def other_inputs():
    return [_inputs(3, 12, 10), _inputs(1, 7, 2), _inputs(2, 20, 0)]


def probe_inputs():
    return other_inputs()
