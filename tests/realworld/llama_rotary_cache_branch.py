"""LLaMA rotary embedding (transformers 4.3x): `if seq_len > self.max_seq_len_cached:` grows the cos/sin cache,
and `if attn_weights.size() != (bsz, self.num_heads, q_len, kv_seq_len): raise`; TracerWarnings "Converting a
tensor to a Python boolean".

Source: https://github.com/OpenVINO-dev-contest/llama2.openvino/issues/5
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"q": {2: "seq"}}


class RotaryAttention(nn.Module):
    def __init__(self, dim=4, max_position_embeddings=4):
        super().__init__()
        self.dim = dim
        self._set_cache(max_position_embeddings)

    def _set_cache(self, seq_len):
        self.max_seq_len_cached = seq_len
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.dim, 2).float() / self.dim))
        freqs = torch.outer(torch.arange(seq_len).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)

    def forward(self, q):
        bsz, num_heads, q_len, _ = q.shape
        seq_len = q_len
        if seq_len > self.max_seq_len_cached:
            self._set_cache(seq_len)
        q = q * self.cos_cached[:seq_len]
        attn_weights = q @ q.transpose(-1, -2)
        if attn_weights.size() != (bsz, num_heads, q_len, q_len):
            raise ValueError("bad attention size")
        return attn_weights.softmax(-1) @ q


def make_model():
    return RotaryAttention()


def example_inputs():
    return (torch.randn(1, 2, 3, 4),)


def other_inputs():
    return [(torch.randn(1, 2, 7, 4),), (torch.randn(1, 2, 2, 4),)]


def probe_inputs():
    return other_inputs()
