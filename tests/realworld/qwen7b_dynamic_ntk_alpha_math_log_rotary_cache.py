"""Qwen-7B (v1, `modeling_qwen.py` remote code) rotary setup: `QWenModel.forward` derives the dynamic-NTK factor
from the sequence length in Python (`get_ntk_alpha`: `math.log(true_seq_len / self.seq_length, 2) + 1`,
`2 ** math.ceil(...) - 1`, `max(ntk_alpha, 1)`, chosen under `elif kv_seq_len != hidden_states.size()[1]`), and
`RotaryEmbedding` keeps a cos/sin cache on the module that it rebuilds only
`if seqlen > self._seq_len_cached or ntk_alpha != self._ntk_alpha_cached`. Exporting Qwen-7B with
torch.onnx.export, the report's log flags exactly these lines ("TracerWarning: Converting a tensor to a Python
boolean ... `elif kv_seq_len != hidden_states.size()[1]`" and "`if seqlen > self._seq_len_cached or ntk_alpha !=
self._ntk_alpha_cached`"). (Trimmed to embedding + one q projection with the rotary applied; `seq_length` = 16
instead of 8192 so that the test lengths cross the NTK threshold.)

Source: https://github.com/luchangli03/export_llama_to_onnx/issues/12
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-49"


def _rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(t, freqs):
    cos, sin = freqs
    rot_dim = freqs[0].shape[-1]
    t_, t_pass_ = t[..., :rot_dim], t[..., rot_dim:]
    t_ = t_.float()
    t_pass_ = t_pass_.float()
    t_ = (t_ * cos) + (_rotate_half(t_) * sin)
    return torch.cat((t_, t_pass_), dim=-1).type_as(t)


class RotaryEmbedding(torch.nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        self.dim = dim
        self.base = base
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._rotary_pos_emb_cache = None
        self._seq_len_cached = 0
        self._ntk_alpha_cached = 1.0
        self._ntk_alpha_cached_list = [1.0]

    def update_rotary_pos_emb_cache(self, seqlen, ntk_alpha=1.0):
        if seqlen > self._seq_len_cached or ntk_alpha != self._ntk_alpha_cached:
            base = self.base * ntk_alpha ** (self.dim / (self.dim - 2))
            self.inv_freq = 1.0 / (
                base ** (torch.arange(0, self.dim, 2, device=self.inv_freq.device).float() / self.dim)
            )
            self._seq_len_cached = max(2 * seqlen, 16)
            self._ntk_alpha_cached = ntk_alpha
            seq = torch.arange(self._seq_len_cached, device=self.inv_freq.device)
            freqs = torch.outer(seq.type_as(self.inv_freq), self.inv_freq)

            emb = torch.cat((freqs, freqs), dim=-1)
            emb = emb[None, :, None, :]  # rearrange(emb, "n d -> 1 n 1 d")

            cos, sin = emb.cos(), emb.sin()
            self._rotary_pos_emb_cache = [cos, sin]

    def forward(self, max_seq_len, ntk_alpha=1.0):
        self.update_rotary_pos_emb_cache(max_seq_len, ntk_alpha)
        cos, sin = self._rotary_pos_emb_cache
        return [cos[:, :max_seq_len], sin[:, :max_seq_len]]


class QWenModel(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=32, num_heads=2, seq_length=16, use_dynamic_ntk=True):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, hidden_size)
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.seq_length = seq_length
        self.use_dynamic_ntk = use_dynamic_ntk
        self.rotary_emb = RotaryEmbedding(self.head_dim)
        self.q_proj = nn.Linear(hidden_size, hidden_size)

    def get_ntk_alpha(self, true_seq_len):
        context_value = math.log(true_seq_len / self.seq_length, 2) + 1
        ntk_alpha = 2 ** math.ceil(context_value) - 1
        ntk_alpha = max(ntk_alpha, 1)
        return ntk_alpha

    def forward(self, input_ids, past_key_values=None):
        hidden_states = self.wte(input_ids)
        kv_seq_len = hidden_states.size()[1]
        if past_key_values is not None and past_key_values[0] is not None:
            kv_seq_len += past_key_values[0][0].shape[1]

        if self.training or not self.use_dynamic_ntk:
            ntk_alpha_list = [1.0]
        elif kv_seq_len != hidden_states.size()[1]:
            ntk_alpha_list = self.rotary_emb._ntk_alpha_cached_list
        else:
            ntk_alpha_list = []
            ntk_alpha = self.get_ntk_alpha(kv_seq_len)
            ntk_alpha_list.append(ntk_alpha)
        self.rotary_emb._ntk_alpha_cached_list = ntk_alpha_list
        rotary_pos_emb_list = [self.rotary_emb(kv_seq_len, ntk_alpha=ntk_alpha) for ntk_alpha in ntk_alpha_list]

        bsz, cur_len, _ = hidden_states.shape
        query = self.q_proj(hidden_states).view(bsz, cur_len, self.num_heads, self.head_dim)
        rotary_pos_emb = [i[:, -cur_len:, :, :] for i in rotary_pos_emb_list[0]]
        query = apply_rotary_pos_emb(query, rotary_pos_emb)
        return query.reshape(bsz, cur_len, -1)


def make_model():
    return QWenModel().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 100, (3, 40)),), (torch.randint(0, 100, (1, 5)),)]


def probe_inputs():
    return other_inputs()
