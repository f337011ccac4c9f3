"""ChunkFormer (ASR conformer) relative-position attention: `rel_shift` builds the shifted score
matrix with `x.as_strided(size, stride, storage_offset=n_stride * (time1 - 1))`; the PR adding ONNX
export had to replace it by a gather because the exporter cannot represent this as_strided.

Source: https://github.com/khanld/chunkformer/pull/42
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"xs": {0: "batch", 1: "time"}}
BLIND = "operators-5"


class ChunkAttentionWithRelativeRightContext(nn.Module):
    def __init__(self, n_head, n_feat, dropout_rate):
        super().__init__()
        self.d_k = n_feat // n_head
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.dropout = nn.Dropout(p=dropout_rate)
        self.linear_pos = nn.Linear(n_feat, n_feat, bias=False)
        self.pos_bias_u = nn.Parameter(torch.Tensor(self.h, self.d_k))
        self.pos_bias_v = nn.Parameter(torch.Tensor(self.h, self.d_k))
        torch.nn.init.xavier_uniform_(self.pos_bias_u)
        torch.nn.init.xavier_uniform_(self.pos_bias_v)

    def forward_qkv(self, query, key, value):
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        return q, k, v

    def rel_shift(self, x, left_context_size: int = 0, right_context_size: int = 0):
        (batch_size, num_heads, time1, n) = x.size()
        time2 = time1 + left_context_size + right_context_size
        batch_stride = x.stride(0)
        head_stride = x.stride(1)
        time1_stride = x.stride(2)
        n_stride = x.stride(3)
        return x.as_strided(
            (batch_size, num_heads, time1, time2),
            (batch_stride, head_stride, time1_stride - n_stride, n_stride),
            storage_offset=n_stride * (time1 - 1),
        )

    def forward(self, query, key, value, pos_emb, left_context_size: int = 0, right_context_size: int = 0):
        q, k, v = self.forward_qkv(query, key, value)
        q = q.transpose(1, 2)  # (batch, time1, head, d_k)
        n_batch_pos = pos_emb.size(0)
        p = self.linear_pos(pos_emb).view(n_batch_pos, -1, self.h, self.d_k)
        p = p.transpose(1, 2)  # (batch, head, time1, d_k)
        q_with_bias_u = (q + self.pos_bias_u).transpose(1, 2)
        q_with_bias_v = (q + self.pos_bias_v).transpose(1, 2)
        matrix_ac = torch.matmul(q_with_bias_u, k.transpose(-2, -1))
        matrix_bd = torch.matmul(q_with_bias_v, p.transpose(-2, -1))
        # Add relative shift with left and right context inclusion, it can stream
        matrix_bd = self.rel_shift(matrix_bd, left_context_size, right_context_size)
        scores = (matrix_ac + matrix_bd) / math.sqrt(self.d_k)  # (batch, head, time1, time2)
        attn = torch.softmax(scores.float(), dim=-1).type_as(v)
        x = torch.matmul(self.dropout(attn), v)
        x = x.transpose(1, 2).contiguous().view(query.size(0), -1, self.h * self.d_k)
        return self.linear_out(x)


class ChunkFormerAttentionBlock(nn.Module):
    """Full-context encoder layer (chunk_size=0, no cache); the relative positional
    encoding is a sinusoid table sliced around its centre (my simplification)."""

    def __init__(self, d_model=64, n_head=4, max_len=512):
        super().__init__()
        self.max_len = max_len
        pos = torch.arange(max_len - 1, -max_len, -1.0).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model))
        pe = torch.zeros(2 * max_len - 1, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)
        self.norm = nn.LayerNorm(d_model)
        self.self_attn = ChunkAttentionWithRelativeRightContext(n_head, d_model, 0.1)

    def forward(self, xs):
        size = xs.size(1)
        pos_emb = self.pe[:, self.max_len - size : self.max_len + size - 1]
        x = self.norm(xs)
        return xs + self.self_attn(x, x, x, pos_emb)


def make_model():
    return ChunkFormerAttentionBlock().eval()


def example_inputs():
    return (torch.randn(2, 37, 64),)


def other_inputs():
    return [(torch.randn(3, 50, 64),), (torch.randn(1, 12, 64),)]


def probe_inputs():
    return other_inputs()
