"""FunASR (ESPnet-derived) Conformer/Transformer encoder: MultiHeadedAttention.forward_attention computes
the fill value as `float(numpy.finfo(torch.tensor(0, dtype=scores.dtype).numpy().dtype).min)` and
masks with `masked_fill` on `mask.unsqueeze(1).eq(0)`; FunASR's ONNX export of the Conformer encoder and
the Paraformer decoder swaps these layers for `Onnx(RelPos)MultiHeadedAttention`, whose
`forward_attention` just adds a precomputed additive mask.

Source: https://github.com/modelscope/FunASR/commit/57f2a51f9ae2c7c9951f137f3d247cff47100944
"""
import math

import numpy
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"xs_pad": {0: "batch", 1: "time"}, "masks": {0: "batch", 2: "time"}}
BLIND = "domains-58"


class MultiHeadedAttention(nn.Module):
    def __init__(self, n_head, n_feat, dropout_rate):
        """Construct an MultiHeadedAttention object."""
        super(MultiHeadedAttention, self).__init__()
        assert n_feat % n_head == 0
        # We assume d_v always equals d_k
        self.d_k = n_feat // n_head
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.attn = None
        self.dropout = nn.Dropout(p=dropout_rate)

    def forward_qkv(self, query, key, value):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k)
        q = q.transpose(1, 2)  # (batch, head, time1, d_k)
        k = k.transpose(1, 2)  # (batch, head, time2, d_k)
        v = v.transpose(1, 2)  # (batch, head, time2, d_k)

        return q, k, v

    def forward_attention(self, value, scores, mask):
        n_batch = value.size(0)
        if mask is not None:
            mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
            min_value = float(
                numpy.finfo(torch.tensor(0, dtype=scores.dtype).numpy().dtype).min
            )
            scores = scores.masked_fill(mask, min_value)
            self.attn = torch.softmax(scores, dim=-1).masked_fill(
                mask, 0.0
            )  # (batch, head, time1, time2)
        else:
            self.attn = torch.softmax(scores, dim=-1)  # (batch, head, time1, time2)

        p_attn = self.dropout(self.attn)
        x = torch.matmul(p_attn, value)  # (batch, head, time1, d_k)
        x = (
            x.transpose(1, 2).contiguous().view(n_batch, -1, self.h * self.d_k)
        )  # (batch, time1, d_model)

        return self.linear_out(x)  # (batch, time1, d_model)

    def forward(self, query, key, value, mask):
        q, k, v = self.forward_qkv(query, key, value)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        return self.forward_attention(v, scores, mask)


class EncoderLayer(nn.Module):
    def __init__(self, size, self_attn, dropout_rate=0.1):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = nn.Sequential(nn.Linear(size, 4 * size), nn.ReLU(), nn.Linear(4 * size, size))
        self.norm1 = nn.LayerNorm(size)
        self.norm2 = nn.LayerNorm(size)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, x, mask):
        residual = x
        x = self.norm1(x)
        x = residual + self.dropout(self.self_attn(x, x, x, mask))
        residual = x
        x = self.norm2(x)
        x = residual + self.dropout(self.feed_forward(x))
        return x, mask


class TransformerEncoderBody(nn.Module):
    def __init__(self, output_size=32, attention_heads=4, num_blocks=2):
        super().__init__()
        self.encoders = nn.ModuleList(
            EncoderLayer(output_size, MultiHeadedAttention(attention_heads, output_size, 0.0))
            for _ in range(num_blocks)
        )
        self.after_norm = nn.LayerNorm(output_size)

    def forward(self, xs_pad, masks):
        for layer in self.encoders:
            xs_pad, masks = layer(xs_pad, masks)
        return self.after_norm(xs_pad)


def make_model():
    return TransformerEncoderBody().eval()


def _inputs(lengths, t):
    b = len(lengths)
    xs = torch.randn(b, t, 32)
    masks = (torch.arange(t)[None, :] < torch.tensor(lengths)[:, None])[:, None, :]
    return (xs, masks)


def example_inputs():
    return _inputs([20, 14], 20)


def other_inputs():
    return [_inputs([31, 31, 9], 31), _inputs([7], 7)]


def probe_inputs():
    return other_inputs()
