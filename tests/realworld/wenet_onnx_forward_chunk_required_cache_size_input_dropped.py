"""WeNet streaming conformer encoder exported through `forward_chunk(xs, offset, required_cache_size, subsampling_cache,
elayers_output_cache, conformer_cnn_cache)` with six inputs, but the exported ONNX model only has five:
`required_cache_size` is consumed by Python comparisons / `max()` when computing `next_cache_start`, so it is baked
into the graph as a constant and disappears from the model inputs (the reporter had to comment it out of the feed).

Source: https://github.com/Mashiro009/wenet-onnx/issues/1
"""
import math

import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"xs": {1: "T"}, "subsampling_cache": {1: "cache_len"}, "elayers_output_cache": {2: "cache_len"}}
BLIND = "domains-30"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        self.xscale = math.sqrt(d_model)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def position_encoding(self, offset, size):
        return self.pe[:, offset:offset + size]


class ConformerEncoder(nn.Module):
    def __init__(self, idim=80, d_model=32, num_blocks=2):
        super().__init__()
        self.embed = nn.Linear(idim, d_model)
        self.pos = PositionalEncoding(d_model)
        self.encoders = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(num_blocks)])
        self.after_norm = nn.LayerNorm(d_model)

    def forward_chunk(self, xs, offset, required_cache_size, subsampling_cache,
                      elayers_output_cache, conformer_cnn_cache):
        assert xs.size(0) == 1
        xs = self.embed(xs) * self.pos.xscale
        cache_size = subsampling_cache.size(1)
        xs = torch.cat((subsampling_cache, xs), dim=1)
        pos_emb = self.pos.position_encoding(offset - cache_size, xs.size(1))
        xs = xs + pos_emb
        if required_cache_size < 0:
            next_cache_start = 0
        elif required_cache_size == 0:
            next_cache_start = xs.size(1)
        else:
            next_cache_start = max(xs.size(1) - required_cache_size, 0)
        r_subsampling_cache = xs[:, next_cache_start:, :]
        r_elayers_output_cache = []
        for i, layer in enumerate(self.encoders):
            attn_cache = elayers_output_cache[i]
            ctx = torch.cat((attn_cache, xs[:, attn_cache.size(1):, :]), dim=1)
            xs = xs + torch.relu(layer(ctx)) + conformer_cnn_cache[i].mean()
            r_elayers_output_cache.append(xs[:, next_cache_start:, :])
        xs = self.after_norm(xs)
        return (xs[:, cache_size:, :], r_subsampling_cache,
                torch.stack(r_elayers_output_cache, dim=0), conformer_cnn_cache)

    forward = forward_chunk


def make_model():
    return ConformerEncoder().eval()


def _inputs(t, cache_len, required):
    return (torch.randn(1, t, 80), torch.tensor(cache_len), torch.tensor(required),
            torch.randn(1, cache_len, 32), torch.randn(2, 1, cache_len, 32), torch.randn(2, 1, 32, 7))


def example_inputs():
    return _inputs(16, 24, 16)


def other_inputs():
    return [_inputs(12, 30, 8), _inputs(20, 10, 32)]


def probe_inputs():
    return other_inputs()
