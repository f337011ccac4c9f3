"""Qwen-7B-Chat (remote-code modeling_qwen.py) exported layer-by-layer to ONNX: dynamic-NTK rotary cache
(`if seqlen > self._seq_len_cached ...: self._seq_len_cached = max(2 * seqlen, 16)`), the
`get_ntk_alpha` math.log/math.ceil on the sequence length, the logn-attention branch
`if key_size > self.seq_length and self.use_logn_attn` and the causal-mask branch `if query.size(1) == key_size`.
The export prints TracerWarnings "Converting a tensor to a Python boolean" on those lines and the model then
fails at run time. Tiny config (seq_length=8 instead of 8192), one block, einops rearrange written as unflatten.

Source: https://github.com/luchangli03/export_llama_to_onnx/issues/10
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-7"


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

    def update_rotary_pos_emb_cache(self, max_seq_len, offset=0, ntk_alpha=1.0):
        seqlen = max_seq_len + offset
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

    def forward(self, max_seq_len, offset=0, ntk_alpha=1.0):
        self.update_rotary_pos_emb_cache(max_seq_len, offset, ntk_alpha)
        cos, sin = self._rotary_pos_emb_cache
        return [cos[:, offset : offset + max_seq_len], sin[:, offset : offset + max_seq_len]]


def _rotate_half(x):
    x = x.unflatten(-1, (2, -1))  # rearrange(x, "... (j d) -> ... j d", j=2)
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
    def __init__(self, hidden_size=32, num_heads=4, seq_length=8):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, hidden_size // num_heads
        self.split_size = hidden_size
        self.seq_length = seq_length
        self.use_logn_attn = True
        self.c_attn = nn.Linear(hidden_size, 3 * hidden_size)
        self.c_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        logn_list = [math.log(i, self.seq_length) if i > self.seq_length else 1 for i in range(1, 32768)]
        logn_tensor = torch.tensor(logn_list)[None, :, None, None]
        self.register_buffer("logn_tensor", logn_tensor, persistent=False)

    def forward(self, hidden_states, rotary_pos_emb_list):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query = query.view(query.size()[:-1] + (self.num_heads, self.head_dim))
        key = key.view(key.size()[:-1] + (self.num_heads, self.head_dim))
        value = value.view(value.size()[:-1] + (self.num_heads, self.head_dim))

        cur_len = query.shape[1]
        rotary_pos_emb = [i[:, -cur_len:, :, :] for i in rotary_pos_emb_list[0]]
        query = apply_rotary_pos_emb(query, rotary_pos_emb)
        key = apply_rotary_pos_emb(key, rotary_pos_emb)

        key_size = key.size(1)
        if key_size > self.seq_length and self.use_logn_attn and not self.training:
            seq_start = key.size(1) - query.size(1)
            seq_end = key.size(1)
            logn_tensor = self.logn_tensor[:, seq_start:seq_end, :, :].type_as(query)
            query = query * logn_tensor.expand_as(query)

        key_size = key.size(1)
        if query.size(1) == key_size:
            causal_mask = torch.tril(
                torch.ones((key_size, key_size), dtype=torch.bool, device=query.device)
            ).view(1, 1, key_size, key_size)
        else:
            causal_mask = None
        query, key, value = query.permute(0, 2, 1, 3), key.permute(0, 2, 1, 3), value.permute(0, 2, 1, 3)
        attn_weights = torch.matmul(query, key.transpose(-1, -2)) / (value.size(-1) ** 0.5)
        mask_value = torch.finfo(attn_weights.dtype).min
        if causal_mask is not None:
            attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
        attn_weights = nn.functional.softmax(attn_weights.float(), dim=-1).type(query.dtype)
        attn_output = torch.matmul(attn_weights, value).transpose(1, 2).contiguous()
        return self.c_proj(attn_output.view(attn_output.size()[:-2] + (self.num_heads * self.head_dim,)))


class QWenModel(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=32, seq_length=8):
        super().__init__()
        self.use_dynamic_ntk = True
        self.seq_length = seq_length
        self.wte = nn.Embedding(vocab_size, hidden_size)
        self.rotary_emb = RotaryEmbedding(hidden_size // 4)
        self.attn = QWenAttention(hidden_size, 4, seq_length)

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
        rotary_pos_emb_list = [self.rotary_emb(kv_seq_len, ntk_alpha=ntk_alpha) for ntk_alpha in ntk_alpha_list]
        return hidden_states + self.attn(hidden_states, rotary_pos_emb_list)


def make_model():
    return QWenModel().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 6)),)


def other_inputs():
    return [(torch.randint(0, 100, (3, 20)),), (torch.randint(0, 100, (1, 11)),)]


def probe_inputs():
    return other_inputs()
