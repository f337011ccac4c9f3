"""Phi-4 (mini / multimodal text decoder) under transformers 5.x: the RoPE config moved to
`rope_parameters` with a `rope_type` key, so optimum-executorch's old workaround (setting
`rope_scaling["type"] = "default"`) no longer took effect; the rotary embedding keeps the `longrope`
path, whose `longrope_frequency_update` computes `seq_len = torch.max(position_ids) + 1` and branches on
`if seq_len > original_max_position_embeddings:` to swap the `inv_freq` buffer, and the export "fails on
the data-dependent branch in longrope_frequency_update" (the PR forces `rope_type = "default"` instead).
(Decoder reduced to embedding + RoPE applied to one projection; small sizes.)

Source: https://github.com/huggingface/optimum-executorch/pull/245
"""
import math
from functools import wraps
from types import SimpleNamespace

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-55"

config = SimpleNamespace(
    hidden_size=64, num_attention_heads=4, vocab_size=100, max_position_embeddings=256,
    rope_parameters={
        "rope_type": "longrope", "rope_theta": 10000.0, "original_max_position_embeddings": 64,
        "short_factor": [1.0, 1.05, 1.1, 1.2, 1.4, 1.7, 2.0, 2.4],
        "long_factor": [1.0, 1.4, 2.0, 2.8, 4.0, 5.5, 7.5, 10.0],
    },
)


def _compute_longrope_parameters(config, device, seq_len=None, layer_type=None):
    rope_parameters = config.rope_parameters
    base = rope_parameters["rope_theta"]
    dim = config.hidden_size // config.num_attention_heads
    long_factor = rope_parameters["long_factor"]
    short_factor = rope_parameters["short_factor"]
    original_max_position_embeddings = rope_parameters["original_max_position_embeddings"]
    factor = config.max_position_embeddings / original_max_position_embeddings
    attention_factor = math.sqrt(1 + math.log(factor) / math.log(original_max_position_embeddings))
    if seq_len and seq_len > original_max_position_embeddings:
        ext_factors = torch.tensor(long_factor, dtype=torch.float32, device=device)
    else:
        ext_factors = torch.tensor(short_factor, dtype=torch.float32, device=device)
    inv_freq_shape = torch.arange(0, dim, 2, dtype=torch.int64, device=device).float() / dim
    inv_freq = 1.0 / (ext_factors * base**inv_freq_shape)
    return inv_freq, attention_factor


ROPE_INIT_FUNCTIONS = {"longrope": _compute_longrope_parameters}


def dynamic_rope_update(rope_forward):
    def longrope_frequency_update(self, position_ids, device, layer_type=None):
        """Longrope uses long factor if sequence is larger than original pretraining length, short otherwise."""
        seq_len = torch.max(position_ids) + 1
        if layer_type is None:
            rope_type = self.rope_type
            original_inv_freq = self.original_inv_freq
            prefix = ""
            original_max_position_embeddings = self.config.rope_parameters["original_max_position_embeddings"]
        else:
            rope_type = self.rope_type[layer_type]
            original_inv_freq = getattr(self, f"{layer_type}_original_inv_freq")
            prefix = f"{layer_type}_"
            original_max_position_embeddings = self.config.rope_parameters[layer_type][
                "original_max_position_embeddings"
            ]

        if seq_len > original_max_position_embeddings:
            if not hasattr(self, f"{prefix}long_inv_freq"):
                rope_init_fn = ROPE_INIT_FUNCTIONS[rope_type]
                long_inv_freq, _ = rope_init_fn(
                    self.config, device, seq_len=original_max_position_embeddings + 1, layer_type=layer_type
                )
            else:
                long_inv_freq = getattr(self, f"{prefix}long_inv_freq")
            self.register_buffer(f"{prefix}inv_freq", long_inv_freq, persistent=False)
            setattr(self, f"{prefix}long_inv_freq", long_inv_freq)
        else:
            original_inv_freq = original_inv_freq.to(device)
            self.register_buffer(f"{prefix}inv_freq", original_inv_freq, persistent=False)
            setattr(self, f"{prefix}original_inv_freq", original_inv_freq)

    @wraps(rope_forward)
    def wrapper(self, x, position_ids, layer_type=None):
        rope_type = self.rope_type if layer_type is None else self.rope_type[layer_type]
        kwargs = {"layer_type": layer_type} if layer_type is not None else {}
        if rope_type == "longrope":
            longrope_frequency_update(self, position_ids, device=x.device, **kwargs)
        return rope_forward(self, x, position_ids, **kwargs)

    return wrapper


class Phi3RotaryEmbedding(nn.Module):
    def __init__(self, config, device=None):
        super().__init__()
        self.config = config
        self.rope_type = config.rope_parameters["rope_type"]
        rope_init_fn = ROPE_INIT_FUNCTIONS[self.rope_type]
        inv_freq, self.attention_scaling = rope_init_fn(self.config, device)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = inv_freq

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


class Phi4TextDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.rotary_emb = Phi3RotaryEmbedding(config)
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.q_proj = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, input_ids, position_ids):
        hidden_states = self.embed_tokens(input_ids)
        cos, sin = self.rotary_emb(hidden_states, position_ids)
        bsz, q_len, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(bsz, q_len, -1, self.head_dim).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        return (q * cos) + (rotate_half(q) * sin)


def make_model():
    return Phi4TextDecoder().eval()


def _inputs(batch, seq, start):
    return (torch.randint(0, 100, (batch, seq)),
            torch.arange(start, start + seq).unsqueeze(0).expand(batch, -1).contiguous())


def example_inputs():
    return _inputs(2, 12, 0)           # a short prompt: within the original 64 positions


def other_inputs():
    # a chunk past the original context (long factors) and another short one
    return [_inputs(3, 16, 70), _inputs(1, 7, 20)]


def probe_inputs():
    return other_inputs()
