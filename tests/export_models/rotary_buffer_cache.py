"""LLaMA's rotary cache (transformers 4.3x): `if seq_len > self.max_seq_len_cached:
self._set_cos_sin_cache(seq_len)`, the method registering the cos table as a buffer. Exported at
a length the cache covers, the legacy exporter keeps the cached table: longer inputs fail in
onnxruntime. ONX609 rebuilds it under export (the dynamo exporter then meets a buffer written
with another shape, which it refuses: the rule helps the legacy exporter only here)."""
import torch
from torch import nn


class RotaryAttention(nn.Module):
    def __init__(self, dim=4, max_position_embeddings=4):
        super().__init__()
        self.dim = dim
        self._set_cos_sin_cache(max_position_embeddings)

    def _set_cos_sin_cache(self, seq_len):
        self.max_seq_len_cached = seq_len
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.dim, 2).float() / self.dim))
        freqs = torch.arange(seq_len).float()[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)

    def forward(self, q):
        seq_len = q.shape[2]
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len)
        q = q * self.cos_cached[:seq_len]
        return (q @ q.transpose(-1, -2)).softmax(-1) @ q


def make_model():
    return RotaryAttention()


def example_inputs():
    return (torch.randn(1, 2, 3, 4),)


def probe_inputs():
    return [(torch.randn(1, 2, 7, 4),), (torch.randn(1, 2, 2, 4),)]
