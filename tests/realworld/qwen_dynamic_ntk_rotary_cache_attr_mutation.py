"""Qwen-7B-Chat (trust_remote_code `modeling_qwen.py`): QWenModel.forward computes a dynamic-NTK alpha from the
sequence length with `math.log`/`math.ceil`, stores `self.rotary_emb._ntk_alpha_cached_list`, and RotaryEmbedding
rebuilds and caches `self.inv_freq`, `self._seq_len_cached` and `self._rotary_pos_emb_cache` inside forward when
`seqlen > self._seq_len_cached`; torch.export of the model fails on these module-attribute mutations.

Source: https://github.com/pytorch/pytorch/issues/124796
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-30"


class QWenConfig:
    vocab_size = 100
    hidden_size = 32
    num_attention_heads = 4
    kv_channels = 8
    rotary_pct = 1.0
    rotary_emb_base = 10000
    seq_length = 8
    use_dynamic_ntk = True
    layer_norm_epsilon = 1e-6


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
                base
                ** (
                    torch.arange(0, self.dim, 2, device=self.inv_freq.device).float()
                    / self.dim
                )
            )
            self._seq_len_cached = max(2 * seqlen, 16)
            self._ntk_alpha_cached = ntk_alpha
            seq = torch.arange(self._seq_len_cached, device=self.inv_freq.device)
            freqs = torch.outer(seq.type_as(self.inv_freq), self.inv_freq)

            emb = torch.cat((freqs, freqs), dim=-1)
            emb = emb[None, :, None, :]  # einops: rearrange(emb, "n d -> 1 n 1 d")

            cos, sin = emb.cos(), emb.sin()
            self._rotary_pos_emb_cache = [cos, sin]

    def forward(self, max_seq_len, ntk_alpha=1.0):
        self.update_rotary_pos_emb_cache(max_seq_len, ntk_alpha)
        cos, sin = self._rotary_pos_emb_cache
        return [cos[:, :max_seq_len], sin[:, :max_seq_len]]


def _rotate_half(x):
    x = x.unflatten(-1, (2, -1))  # einops: rearrange(x, "... (j d) -> ... j d", j=2)
    x1, x2 = x.unbind(dim=-2)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(t, freqs):
    cos, sin = freqs
    rot_dim = freqs[0].shape[-1]
    t_, t_pass_ = t[..., :rot_dim], t[..., rot_dim:]
    t_ = t_.float()
    t_pass_ = t_pass_.float()
    t_ = (t_ * cos) + (_rotate_half(t_) * sin)
    return torch.cat((t_, t_pass_), dim=-1).type_as(t)


class QWenAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.kv_channels
        self.projection_size = config.kv_channels * config.num_attention_heads
        self.c_attn = nn.Linear(config.hidden_size, 3 * self.projection_size)
        self.c_proj = nn.Linear(self.projection_size, config.hidden_size, bias=False)

    def forward(self, hidden_states, rotary_pos_emb_list):
        mixed_x_layer = self.c_attn(hidden_states)
        query, key, value = mixed_x_layer.split(self.projection_size, dim=2)
        query = query.view(query.size()[:-1] + (self.num_heads, self.head_dim))
        key = key.view(key.size()[:-1] + (self.num_heads, self.head_dim))
        value = value.view(value.size()[:-1] + (self.num_heads, self.head_dim))

        cur_len = query.shape[1]
        rotary_pos_emb = rotary_pos_emb_list[0]
        rotary_pos_emb = [i[:, -cur_len:, :, :] for i in rotary_pos_emb]
        rotary_pos_emb = (rotary_pos_emb,) * 2
        q_pos_emb, k_pos_emb = rotary_pos_emb
        query = apply_rotary_pos_emb(query, q_pos_emb)
        key = apply_rotary_pos_emb(key, k_pos_emb)

        query, key, value = query.permute(0, 2, 1, 3), key.permute(0, 2, 1, 3), value.permute(0, 2, 1, 3)
        attn_weights = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.head_dim)
        key_length = key.size(-2)
        causal_mask = torch.tril(torch.ones((key_length, key_length), dtype=torch.bool)).view(1, 1, key_length, key_length)
        attn_weights = torch.where(causal_mask, attn_weights, torch.finfo(attn_weights.dtype).min)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_output = torch.matmul(attn_weights, value).permute(0, 2, 1, 3)
        attn_output = attn_output.reshape(attn_output.size()[:-2] + (self.projection_size,))
        return self.c_proj(attn_output)


class QWenModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.seq_length = config.seq_length
        self.use_dynamic_ntk = config.use_dynamic_ntk
        self.wte = nn.Embedding(config.vocab_size, config.hidden_size)
        rotary_ndims = int(config.kv_channels * config.rotary_pct)
        self.rotary_emb = RotaryEmbedding(rotary_ndims, base=config.rotary_emb_base)
        self.attn = QWenAttention(config)
        self.ln_f = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)

    def get_ntk_alpha(self, true_seq_len):
        context_value = math.log(true_seq_len / self.seq_length, 2) + 1
        ntk_alpha = 2 ** math.ceil(context_value) - 1
        ntk_alpha = max(ntk_alpha, 1)
        return ntk_alpha

    def forward(self, input_ids):
        hidden_states = self.wte(input_ids)
        kv_seq_len = hidden_states.size()[1]

        if self.training or not self.use_dynamic_ntk:
            ntk_alpha_list = [1.0]
        else:
            ntk_alpha_list = []
            ntk_alpha = self.get_ntk_alpha(kv_seq_len)
            ntk_alpha_list.append(ntk_alpha)
        self.rotary_emb._ntk_alpha_cached_list = ntk_alpha_list
        rotary_pos_emb_list = [
            self.rotary_emb(kv_seq_len, ntk_alpha=ntk_alpha) for ntk_alpha in ntk_alpha_list
        ]

        hidden_states = hidden_states + self.attn(hidden_states, rotary_pos_emb_list)
        return self.ln_f(hidden_states)


def make_model():
    return QWenModel(QWenConfig()).eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 6)),)


def other_inputs():
    return [(torch.randint(0, 100, (3, 13)),), (torch.randint(0, 100, (1, 30)),)]


def probe_inputs():
    return other_inputs()
