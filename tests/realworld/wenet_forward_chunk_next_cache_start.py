"""WeNet streaming encoder `forward_chunk` exported for chunk-by-chunk ASR with a dynamic attention cache
(`dynamic_axes={'att_cache': {2: 'T_CACHE'}}`): `next_cache_start = max(attention_key_size - required_cache_size, 0)`
and the `if elayers > 0` / `if cache.size(0) > 0` branches are Python decisions on the cache size, so exporting
with the empty cache of the first chunk and then feeding the growing cache of later chunks (16/4 mode) gives a
model whose `next_cache_start` is the export-time value; the maintainers' note calls it "the uncertainty of
`next_cache_start`" caused by the dynamic att_cache shape and works around it by feeding a full-size cache from
the first chunk on.

Source: https://github.com/wenet-e2e/wenet/pull/1023
"""
import math
from typing import Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"att_cache": {2: "T_CACHE"}}
BLIND = "domains-10"


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout_rate: float, max_len: int = 5000):
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(self.d_model)
        self.dropout = torch.nn.Dropout(p=dropout_rate)
        self.max_len = max_len
        self.pe = torch.zeros(self.max_len, self.d_model)
        position = torch.arange(0, self.max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) *
                             -(math.log(10000.0) / self.d_model))
        self.pe[:, 0::2] = torch.sin(position * div_term)
        self.pe[:, 1::2] = torch.cos(position * div_term)
        self.pe = self.pe.unsqueeze(0)

    def forward(self, x: torch.Tensor, offset: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
        assert offset + x.size(1) < self.max_len
        self.pe = self.pe.to(x.device)
        pos_emb = self.pe[:, offset:offset + x.size(1)]
        x = x * self.xscale + pos_emb
        return self.dropout(x), self.dropout(pos_emb)

    def position_encoding(self, offset: int, size: int) -> torch.Tensor:
        assert offset + size < self.max_len
        return self.dropout(self.pe[:, offset:offset + size])


class LinearNoSubsampling(nn.Module):
    def __init__(self, idim: int, odim: int, dropout_rate: float, pos_enc_class: nn.Module):
        super().__init__()
        self.out = torch.nn.Sequential(torch.nn.Linear(idim, odim), torch.nn.LayerNorm(odim, eps=1e-5),
                                       torch.nn.Dropout(dropout_rate))
        self.pos_enc = pos_enc_class

    def forward(self, x, x_mask, offset: int = 0):
        x = self.out(x)
        x, pos_emb = self.pos_enc(x, offset)
        return x, pos_emb, x_mask

    def position_encoding(self, offset: int, size: int) -> torch.Tensor:
        return self.pos_enc.position_encoding(offset, size)


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head: int, n_feat: int, dropout_rate: float):
        super().__init__()
        self.d_k = n_feat // n_head
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.dropout = nn.Dropout(p=dropout_rate)

    def forward_qkv(self, query, key, value):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        return q, k, v

    def forward_attention(self, value, scores, mask: torch.Tensor = torch.ones((0, 0, 0), dtype=torch.bool)):
        n_batch = value.size(0)
        if mask.size(2) > 0:  # time2 > 0
            mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
            scores = scores.masked_fill(mask, -float('inf'))
            attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        else:
            attn = torch.softmax(scores, dim=-1)
        p_attn = self.dropout(attn)
        x = torch.matmul(p_attn, value)
        x = (x.transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k))
        return self.linear_out(x)

    def forward(self, query, key, value, mask: torch.Tensor = torch.ones((0, 0, 0), dtype=torch.bool),
                pos_emb: torch.Tensor = torch.empty(0), cache: torch.Tensor = torch.zeros((0, 0, 0, 0))):
        q, k, v = self.forward_qkv(query, key, value)
        if cache.size(0) > 0:
            key_cache, value_cache = torch.split(cache, cache.size(-1) // 2, dim=-1)
            k = torch.cat([key_cache, k], dim=2)
            v = torch.cat([value_cache, v], dim=2)
        new_cache = torch.cat((k, v), dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        return self.forward_attention(v, scores, mask), new_cache


class TransformerEncoderLayer(nn.Module):
    def __init__(self, size, self_attn, feed_forward, dropout_rate, normalize_before=True):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = feed_forward
        self.norm1 = nn.LayerNorm(size, eps=1e-5)
        self.norm2 = nn.LayerNorm(size, eps=1e-5)
        self.dropout = nn.Dropout(dropout_rate)
        self.normalize_before = normalize_before

    def forward(self, x, mask, pos_emb, mask_pad: torch.Tensor = torch.ones((0, 0, 0), dtype=torch.bool),
                att_cache: torch.Tensor = torch.zeros((0, 0, 0, 0)), cnn_cache: torch.Tensor = torch.zeros((0, 0, 0, 0))):
        residual = x
        if self.normalize_before:
            x = self.norm1(x)
        x_att, new_att_cache = self.self_attn(x, x, x, mask, cache=att_cache)
        x = residual + self.dropout(x_att)
        residual = x
        if self.normalize_before:
            x = self.norm2(x)
        x = residual + self.dropout(self.feed_forward(x))
        fake_cnn_cache = torch.zeros((0, 0, 0), dtype=x.dtype, device=x.device)
        return x, mask, new_att_cache, fake_cnn_cache


class TransformerEncoder(nn.Module):
    def __init__(self, input_size=20, output_size=16, attention_heads=4, linear_units=32, num_blocks=2):
        super().__init__()
        self.embed = LinearNoSubsampling(input_size, output_size, 0.0, PositionalEncoding(output_size, 0.0))
        self.normalize_before = True
        self.after_norm = nn.LayerNorm(output_size, eps=1e-5)
        self.global_cmvn = None
        self.encoders = nn.ModuleList([
            TransformerEncoderLayer(
                output_size, MultiHeadedAttention(attention_heads, output_size, 0.0),
                nn.Sequential(nn.Linear(output_size, linear_units), nn.ReLU(), nn.Linear(linear_units, output_size)),
                0.0, True)
            for _ in range(num_blocks)
        ])

    def forward_chunk(
        self,
        xs: torch.Tensor,
        offset: int,
        required_cache_size: int,
        att_cache: torch.Tensor = torch.zeros(0, 0, 0, 0),
        cnn_cache: torch.Tensor = torch.zeros(0, 0, 0, 0),
        att_mask: torch.Tensor = torch.ones((0, 0, 0), dtype=torch.bool),
    ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        assert xs.size(0) == 1
        # tmp_masks is just for interface compatibility
        tmp_masks = torch.ones(1, xs.size(1), device=xs.device, dtype=torch.bool)
        tmp_masks = tmp_masks.unsqueeze(1)
        if self.global_cmvn is not None:
            xs = self.global_cmvn(xs)
        # NOTE(xcsong): Before embed, shape(xs) is (b=1, time, mel-dim)
        xs, pos_emb, _ = self.embed(xs, tmp_masks, offset)
        # NOTE(xcsong): After  embed, shape(xs) is (b=1, chunk_size, hidden-dim)
        elayers, cache_t1 = att_cache.size(0), att_cache.size(2)
        chunk_size = xs.size(1)
        attention_key_size = cache_t1 + chunk_size
        pos_emb = self.embed.position_encoding(
            offset=offset - cache_t1, size=attention_key_size)
        if required_cache_size < 0:
            next_cache_start = 0
        elif required_cache_size == 0:
            next_cache_start = attention_key_size
        else:
            next_cache_start = max(attention_key_size - required_cache_size, 0)
        r_att_cache = []
        r_cnn_cache = []
        for i, layer in enumerate(self.encoders):
            xs, _, new_att_cache, new_cnn_cache = layer(
                xs, att_mask, pos_emb,
                att_cache=att_cache[i:i + 1] if elayers > 0 else att_cache,
                cnn_cache=cnn_cache[i] if cnn_cache.size(0) > 0 else cnn_cache
            )
            r_att_cache.append(new_att_cache[:, :, next_cache_start:, :])
            r_cnn_cache.append(new_cnn_cache.unsqueeze(0))
        if self.normalize_before:
            xs = self.after_norm(xs)

        r_att_cache = torch.cat(r_att_cache, dim=0)
        r_cnn_cache = torch.cat(r_cnn_cache, dim=0)

        return (xs, r_att_cache, r_cnn_cache)


class StreamingEncoder(nn.Module):
    """export_onnx_cpu.py's `encoder.forward = encoder.forward_chunk`, chunk_size=4 and left_chunks=2
    (16/4-style mode: required_cache_size = chunk_size * left_chunks, offset and required_cache_size as ints)."""

    def __init__(self, chunk_size=4, left_chunks=2):
        super().__init__()
        self.encoder = TransformerEncoder()
        self.required_cache_size = chunk_size * left_chunks
        self.offset = self.required_cache_size

    def forward(self, chunk, att_cache):
        xs, r_att_cache, _ = self.encoder.forward_chunk(chunk, self.offset, self.required_cache_size, att_cache)
        return xs, r_att_cache


def make_model():
    return StreamingEncoder().eval()


def _cache(t):
    # (elayers, head, cache_t1, d_k * 2)
    return torch.randn(2, 4, t, 8)


def example_inputs():
    # first chunk: empty attention cache
    return (torch.randn(1, 4, 20), _cache(0))


def other_inputs():
    # second chunk (one chunk of history), then the steady state (left_chunks * chunk_size of history)
    return [(torch.randn(1, 4, 20), _cache(4)), (torch.randn(1, 4, 20), _cache(8))]


def probe_inputs():
    return other_inputs()
