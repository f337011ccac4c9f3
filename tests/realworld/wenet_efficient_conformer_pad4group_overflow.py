"""WeNet Efficient Conformer: grouped relative-position attention pads the time axis to a multiple of the
group size in `pad4group` (`overflow_Q = Q.size(2) % group_size`,
`padding_Q = (group_size - overflow_Q) * int(overflow_Q // (overflow_Q + 0.00000000000000001))`,
`padding_P = group_size - overflow_P if overflow_P else 0`); the model converts to ONNX "correctly" but does not
work in the onnxruntime deployment, and the maintainers' workaround is to pad the features so the frame count
keeps the same remainder modulo 3 as at export.

Source: https://github.com/wenet-e2e/wenet/issues/1918
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"xs": {0: "batch", 1: "time"}, "masks": {0: "batch", 2: "time"}}
BLIND = "domains-6"


class GroupedRelPositionMultiHeadedAttention(nn.Module):
    def __init__(self, n_head=4, n_feat=32, group_size=3):
        super().__init__()
        self.h, self.d_k, self.n_feat, self.group_size = n_head, n_feat // n_head, n_feat, group_size
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self.linear_pos = nn.Linear(n_feat, n_feat, bias=False)
        self.pos_bias_u = nn.Parameter(torch.randn(self.h, self.d_k * self.group_size) * 0.1)
        self.pos_bias_v = nn.Parameter(torch.randn(self.h, self.d_k * self.group_size) * 0.1)

    def pad4group(self, Q, K, V, P, mask, group_size: int = 3):
        # Compute Overflows
        overflow_Q = Q.size(2) % group_size
        overflow_KV = K.size(2) % group_size

        padding_Q = (group_size - overflow_Q) * int(
            overflow_Q // (overflow_Q + 0.00000000000000001))
        padding_KV = (group_size - overflow_KV) * int(
            overflow_KV // (overflow_KV + 0.00000000000000001))

        batch_size, _, seq_len_KV, _ = K.size()

        # Input Padding (B, T, D) -> (B, T + P, D)
        Q = F.pad(Q, (0, 0, 0, padding_Q), value=0.0)
        K = F.pad(K, (0, 0, 0, padding_KV), value=0.0)
        V = F.pad(V, (0, 0, 0, padding_KV), value=0.0)

        if mask is not None and mask.size(2) > 0:  # time2 > 0:
            mask = mask[:, ::group_size, ::group_size]

        Q = Q.transpose(1, 2).contiguous().view(batch_size, -1, self.h, self.d_k * group_size).transpose(1, 2)
        K = K.transpose(1, 2).contiguous().view(batch_size, -1, self.h, self.d_k * group_size).transpose(1, 2)
        V = V.transpose(1, 2).contiguous().view(batch_size, -1, self.h, self.d_k * group_size).transpose(1, 2)

        # process pos_emb
        P_batch_size = P.size(0)
        overflow_P = P.size(1) % group_size
        padding_P = group_size - overflow_P if overflow_P else 0
        P = F.pad(P, (0, 0, 0, padding_P), value=0.0)
        P = P.view(P_batch_size, -1, self.h, self.d_k * group_size).transpose(1, 2)

        return Q, K, V, P, mask, padding_Q

    def forward_attention(self, value, scores, mask, padding_q=None):
        n_batch = value.size(0)
        mask = mask.unsqueeze(1).eq(0)  # (batch, 1, *, time2)
        mask = mask[:, :, :, :scores.size(-1)]
        scores = scores.masked_fill(mask, -float('inf'))
        attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        x = torch.matmul(attn, value)
        x = x.transpose(1, 2).contiguous().view(n_batch, -1, self.n_feat)
        if padding_q is not None:
            x = x[:, :x.size(1) - padding_q]
        return self.linear_out(x)

    def forward(self, query, key, value, mask, pos_emb):
        q, k, v = self.linear_q(query), self.linear_k(key), self.linear_v(value)
        p = self.linear_pos(pos_emb)
        batch_size, seq_len_KV, _ = k.size()
        q = q.view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
        k = k.view(batch_size, -1, self.h, self.d_k).transpose(1, 2)
        v = v.view(batch_size, -1, self.h, self.d_k).transpose(1, 2)

        q, k, v, p, mask, padding_q = self.pad4group(q, k, v, p, mask, self.group_size)

        q = q.transpose(1, 2)
        q_with_bias_u = (q + self.pos_bias_u).transpose(1, 2)
        q_with_bias_v = (q + self.pos_bias_v).transpose(1, 2)
        matrix_ac = torch.matmul(q_with_bias_u, k.transpose(-2, -1))
        matrix_bd = torch.matmul(q_with_bias_v, p.transpose(-2, -1))
        scores = (matrix_ac + matrix_bd) / math.sqrt(self.d_k * self.group_size)
        return self.forward_attention(v, scores, mask, padding_q)


class EfficientConformerBlock(nn.Module):
    def __init__(self, d_model=32, max_len=500):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.self_attn = GroupedRelPositionMultiHeadedAttention(4, d_model, group_size=3)
        pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, xs, masks):
        pos_emb = self.pe[:, :xs.size(1)]
        x = self.norm(xs)
        return xs + self.self_attn(x, x, x, masks, pos_emb)


def make_model():
    return EfficientConformerBlock().eval()


def example_inputs():
    return (torch.randn(2, 12, 32), torch.ones(2, 1, 12, dtype=torch.bool))


def other_inputs():
    return [
        (torch.randn(1, 20, 32), torch.ones(1, 1, 20, dtype=torch.bool)),
        (torch.randn(3, 16, 32), torch.ones(3, 1, 16, dtype=torch.bool)),
    ]


def probe_inputs():
    return other_inputs()
