"""Phi-3.5 / Llama-style rotary embedding configured with `rope_scaling={"rope_type": "dynamic", "factor": 10.0}`:
transformers' `dynamic_rope_update` wrapper computes `seq_len = torch.max(position_ids) + 1` and grows the
frequencies with `if seq_len > self.max_seq_len_cached:` (re-registering the `inv_freq` buffer), and
`_compute_dynamic_ntk_parameters` picks `seq_len if seq_len > max_position_embeddings else ...`; these branches on a
tensor value block torch.export (the onnx-diagnostic PR patches both, "remove the line using max") and the traced
graph keeps only the branch taken at export time. One attention layer applying the rotary, small sizes.

Source: https://github.com/sdpython/onnx-diagnostic/pull/145
"""
from functools import wraps

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-41"


class Phi3Config:
    hidden_size, num_attention_heads, partial_rotary_factor = 32, 4, 1.0
    max_position_embeddings, rope_theta = 16, 10000.0
    rope_scaling = {"rope_type": "dynamic", "factor": 10.0}


def _compute_default_rope_parameters(config=None, device=None, seq_len=None, **rope_kwargs):
    base = config.rope_theta
    dim = int((config.hidden_size // config.num_attention_heads) * config.partial_rotary_factor)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / dim))
    return inv_freq, 1.0


def _compute_dynamic_ntk_parameters(config=None, device=None, seq_len=None, **rope_kwargs):
    base = config.rope_theta
    partial_rotary_factor = config.partial_rotary_factor if hasattr(config, "partial_rotary_factor") else 1.0
    head_dim = getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)
    dim = int(head_dim * partial_rotary_factor)
    max_position_embeddings = config.max_position_embeddings
    factor = config.rope_scaling["factor"]

    attention_factor = 1.0  # Unused in this type of RoPE

    # seq_len: default to max_position_embeddings, e.g. at init time
    seq_len = seq_len if seq_len is not None and seq_len > max_position_embeddings else max_position_embeddings

    # Compute the inverse frequencies
    base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / dim))
    return inv_freq, attention_factor


ROPE_INIT_FUNCTIONS = {"default": _compute_default_rope_parameters, "dynamic": _compute_dynamic_ntk_parameters}


def dynamic_rope_update(rope_forward):
    def dynamic_frequency_update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.max_seq_len_cached:  # growth
            inv_freq, self.attention_scaling = self.rope_init_fn(self.config, device, seq_len=seq_len)
            self.register_buffer("inv_freq", inv_freq, persistent=False)
            self.max_seq_len_cached = seq_len

        if seq_len < self.original_max_seq_len and self.max_seq_len_cached > self.original_max_seq_len:  # reset
            self.original_inv_freq = self.original_inv_freq.to(device)
            self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)
            self.max_seq_len_cached = self.original_max_seq_len

    @wraps(rope_forward)
    def wrapper(self, x, position_ids):
        if "dynamic" in self.rope_type:
            dynamic_frequency_update(self, position_ids, device=x.device)
        return rope_forward(self, x, position_ids)

    return wrapper


class Phi3RotaryEmbedding(nn.Module):
    def __init__(self, config, device=None):
        super().__init__()
        if hasattr(config, "rope_scaling") and config.rope_scaling is not None:
            self.rope_type = config.rope_scaling.get("rope_type", config.rope_scaling.get("type"))
        else:
            self.rope_type = "default"
        self.max_seq_len_cached = config.max_position_embeddings
        self.original_max_seq_len = config.max_position_embeddings
        self.config = config
        self.rope_init_fn = ROPE_INIT_FUNCTIONS[self.rope_type]
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


class Phi3Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.qkv_proj = nn.Linear(config.hidden_size, 3 * config.hidden_size, bias=False)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.rotary_emb = Phi3RotaryEmbedding(config)

    def forward(self, hidden_states, position_ids):
        bsz, q_len, _ = hidden_states.shape
        qkv = self.qkv_proj(hidden_states).view(bsz, q_len, 3, self.num_heads, self.head_dim).transpose(1, 3)
        q, k, v = qkv.unbind(2)
        cos, sin = self.rotary_emb(v, position_ids)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        attn = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(attn.transpose(1, 2).reshape(bsz, q_len, -1))


def make_model():
    return Phi3Attention(Phi3Config()).eval()


def _inputs(bsz, seq):
    return torch.randn(bsz, seq, 32), torch.arange(seq).unsqueeze(0).expand(bsz, -1).contiguous()


def example_inputs():
    return _inputs(2, 12)


def other_inputs():
    return [_inputs(3, 40), _inputs(1, 9)]


def probe_inputs():
    return other_inputs()
