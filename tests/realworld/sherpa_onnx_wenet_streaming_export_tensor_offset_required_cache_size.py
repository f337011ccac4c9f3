"""sherpa-onnx's scripts/wenet/export-onnx-streaming.py ("Add scripts to export ASR models from wenet to
ONNX") wraps WeNet's `encoder.forward_chunk` and feeds `offset` and `required_cache_size` as int64
tensors so they become graph inputs. WeNet's code treats them as Python ints: the batched branch of
`position_encoding` asserts `torch.max(offset) + size < self.max_len`, and forward_chunk picks
`next_cache_start` with `if required_cache_size < 0` / `max(attention_key_size - required_cache_size, 0)`.

Source: https://github.com/k2-fsa/sherpa-onnx/pull/425
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {1: "T"}, "attn_cache": {2: "T_cache"}, "attn_mask": {2: "T_mask"}}
BLIND = "domains-84"


class PositionalEncoding(torch.nn.Module):
    def __init__(self, d_model: int, dropout_rate: float, max_len: int = 5000):
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(self.d_model)
        self.dropout = torch.nn.Dropout(p=dropout_rate)
        self.max_len = max_len
        self.pe = torch.zeros(self.max_len, self.d_model)
        position = torch.arange(0, self.max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model))
        self.pe[:, 0::2] = torch.sin(position * div_term)
        self.pe[:, 1::2] = torch.cos(position * div_term)
        self.pe = self.pe.unsqueeze(0)

    def forward(self, x, offset=0):
        self.pe = self.pe.to(x.device)
        pos_emb = self.position_encoding(offset, x.size(1), False)
        x = x * self.xscale + pos_emb
        return self.dropout(x), self.dropout(pos_emb)

    def position_encoding(self, offset, size: int, apply_dropout: bool = True):
        if isinstance(offset, int):
            assert offset + size < self.max_len
            pos_emb = self.pe[:, offset:offset + size]
        elif isinstance(offset, torch.Tensor) and offset.dim() == 0:  # scalar
            assert offset + size < self.max_len
            pos_emb = self.pe[:, offset:offset + size]
        else:  # for batched streaming decoding on GPU
            assert torch.max(offset) + size < self.max_len
            index = offset.unsqueeze(1) + torch.arange(0, size).to(offset.device)  # B X T
            flag = index > 0
            index = index * flag
            pos_emb = F.embedding(index, self.pe[0])  # B X T X d_model
        if apply_dropout:
            pos_emb = self.dropout(pos_emb)
        return pos_emb


class Conv2dSubsampling4(nn.Module):
    def __init__(self, idim, odim, pos_enc):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, odim, 3, 2), nn.ReLU(), nn.Conv2d(odim, odim, 3, 2), nn.ReLU())
        self.out = nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim)
        self.pos_enc = pos_enc

    def forward(self, x, x_mask, offset=0):
        x = x.unsqueeze(1)  # (b, c=1, t, f)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
        x, pos_emb = self.pos_enc(x, offset)
        return x, pos_emb, x_mask[:, :, 2::2][:, :, 2::2]

    def position_encoding(self, offset, size):
        return self.pos_enc.position_encoding(offset, size)


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat):
        super().__init__()
        self.d_k, self.h = n_feat // n_head, n_head
        self.linear_q, self.linear_k = nn.Linear(n_feat, n_feat), nn.Linear(n_feat, n_feat)
        self.linear_v, self.linear_out = nn.Linear(n_feat, n_feat), nn.Linear(n_feat, n_feat)

    def forward(self, query, key, value, mask, pos_emb, cache):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        if cache.size(0) > 0:
            key_cache, value_cache = torch.split(cache, cache.size(-1) // 2, dim=-1)
            k = torch.cat([key_cache, k], dim=2)
            v = torch.cat([value_cache, v], dim=2)
        new_cache = torch.cat((k, v), dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask.size(2) > 0:  # time2 > 0
            mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
            mask = mask[:, :, :, :scores.size(-1)]
            scores = scores.masked_fill(mask, -float('inf'))
            attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        else:
            attn = torch.softmax(scores, dim=-1)
        x = torch.matmul(attn, v).transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k)
        return self.linear_out(x), new_cache


class ConformerEncoderLayer(nn.Module):
    def __init__(self, size, kernel_size=15):
        super().__init__()
        self.self_attn = MultiHeadedAttention(4, size)
        self.feed_forward = nn.Sequential(nn.Linear(size, size * 2), nn.SiLU(), nn.Linear(size * 2, size))
        self.pointwise_conv1 = nn.Conv1d(size, 2 * size, 1)
        self.depthwise_conv = nn.Conv1d(size, size, kernel_size, groups=size)
        self.pointwise_conv2 = nn.Conv1d(size, size, 1)
        self.lorder = kernel_size - 1
        self.norm_mha, self.norm_conv, self.norm_ff = nn.LayerNorm(size), nn.LayerNorm(size), nn.LayerNorm(size)

    def forward(self, x, mask, pos_emb, att_cache, cnn_cache):
        x_att, new_att_cache = self.self_attn(*([self.norm_mha(x)] * 3), mask, pos_emb, att_cache)
        x = x + x_att
        y = self.norm_conv(x).transpose(1, 2)
        if cnn_cache.size(2) == 0:
            y = nn.functional.pad(y, (self.lorder, 0), 'constant', 0.0)
        else:
            y = torch.cat((cnn_cache, y), dim=2)
        new_cnn_cache = y[:, :, -self.lorder:]
        y = self.pointwise_conv2(F.silu(self.depthwise_conv(F.glu(self.pointwise_conv1(y), dim=1))))
        x = x + y.transpose(1, 2)
        x = x + self.feed_forward(self.norm_ff(x))
        return x, mask, new_att_cache, new_cnn_cache


class ConformerEncoder(nn.Module):
    def __init__(self, input_size=80, output_size=64, num_blocks=2):
        super().__init__()
        self.embed = Conv2dSubsampling4(input_size, output_size, PositionalEncoding(output_size, 0.1))
        self.encoders = nn.ModuleList([ConformerEncoderLayer(output_size) for _ in range(num_blocks)])
        self.after_norm = nn.LayerNorm(output_size)

    def forward_chunk(self, xs, offset: int, required_cache_size: int,
                      att_cache=torch.zeros(0, 0, 0, 0), cnn_cache=torch.zeros(0, 0, 0, 0),
                      att_mask=torch.ones((0, 0, 0), dtype=torch.bool)):
        assert xs.size(0) == 1
        tmp_masks = torch.ones(1, xs.size(1), device=xs.device, dtype=torch.bool)
        tmp_masks = tmp_masks.unsqueeze(1)
        xs, pos_emb, _ = self.embed(xs, tmp_masks, offset)
        elayers, cache_t1 = att_cache.size(0), att_cache.size(2)
        chunk_size = xs.size(1)
        attention_key_size = cache_t1 + chunk_size
        pos_emb = self.embed.position_encoding(offset=offset - cache_t1, size=attention_key_size)
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
                cnn_cache=cnn_cache[i] if cnn_cache.size(0) > 0 else cnn_cache)
            r_att_cache.append(new_att_cache[:, :, next_cache_start:, :])
            r_cnn_cache.append(new_cnn_cache.unsqueeze(0))
        xs = self.after_norm(xs)
        r_att_cache = torch.cat(r_att_cache, dim=0)
        r_cnn_cache = torch.cat(r_cnn_cache, dim=0)
        return (xs, r_att_cache, r_cnn_cache)


class CTC(nn.Module):
    def __init__(self, odim, encoder_output_size):
        super().__init__()
        self.ctc_lo = nn.Linear(encoder_output_size, odim)

    def log_softmax(self, hs_pad):
        return F.log_softmax(self.ctc_lo(hs_pad), dim=2)


class OnnxModel(torch.nn.Module):
    def __init__(self, encoder: torch.nn.Module, ctc: torch.nn.Module):
        super().__init__()
        self.encoder = encoder
        self.ctc = ctc

    def forward(self, x, offset, required_cache_size, attn_cache, conv_cache, attn_mask):
        encoder_out, next_att_cache, next_conv_cache = self.encoder.forward_chunk(
            xs=x,
            offset=offset,
            required_cache_size=required_cache_size,
            att_cache=attn_cache,
            cnn_cache=conv_cache,
            att_mask=attn_mask,
        )
        log_probs = self.ctc.log_softmax(encoder_out)
        return log_probs, next_att_cache, next_conv_cache


def make_model():
    return OnnxModel(ConformerEncoder(), CTC(30, 64)).eval()


def _inputs(chunk_size, left_chunks):
    required_cache_size = chunk_size * left_chunks
    decoding_window = (chunk_size - 1) * 4 + 6 + 1
    attn_mask = torch.ones(1, 1, required_cache_size + chunk_size, dtype=torch.bool)
    attn_mask[:, :, :required_cache_size] = 0
    return (torch.rand(1, decoding_window, 80),
            torch.tensor([required_cache_size], dtype=torch.int64),
            torch.tensor([required_cache_size], dtype=torch.int64),
            torch.randn(2, 4, required_cache_size, 64 // 4 * 2),
            torch.randn(2, 1, 64, 14),
            attn_mask)


def example_inputs():
    # the script: chunk_size = 16, left_chunks = 4
    return _inputs(16, 4)


def other_inputs():
    return [_inputs(8, 4), _inputs(32, 1)]


def probe_inputs():
    return other_inputs()
