"""icefall pruned_transducer_stateless5 Conformer (LibriSpeech): RelPositionMultiheadAttention.rel_shift does
the Transformer-XL relative shift with `x.as_strided((batch_size, num_heads, time1, time2), (batch_stride,
head_stride, time1_stride - n_stride, n_stride), storage_offset=n_stride * (time1 - 1))`, strides read from
`x.stride()`; "Add onnx export support for pruned_transducer_stateless5" replaces it under
`is_jit_tracing()` with an arange + gather version. (Encoder reduced to the positional encoding and one
relative-position self-attention.)

Source: https://github.com/k2-fsa/icefall/pull/883
"""
import math

import torch
from torch import Tensor, nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "time", 1: "batch"}}
BLIND = "domains-54"


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 1000) -> None:
        super().__init__()
        self.d_model = d_model
        pos = torch.arange(max_len - 1, -max_len, -1, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                             * -(math.log(10000.0) / d_model))
        pe = torch.zeros(2 * max_len - 1, d_model)
        pe[:, 0::2] = torch.sin(pos * div_term)
        pe[:, 1::2] = torch.cos(pos * div_term)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)

    def forward(self, x: Tensor, left_context: int = 0):
        x_size_left = x.size(0) + left_context
        pos_emb = self.pe[
            :,
            self.pe.size(1) // 2
            - x_size_left
            + 1 : self.pe.size(1) // 2  # noqa E203
            + x.size(0),
        ]
        return x, pos_emb


class RelPositionMultiheadAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.in_proj = nn.Linear(embed_dim, 3 * embed_dim, bias=True)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.linear_pos = nn.Linear(embed_dim, embed_dim, bias=False)
        self.pos_bias_u = nn.Parameter(torch.randn(num_heads, self.head_dim) * 0.1)
        self.pos_bias_v = nn.Parameter(torch.randn(num_heads, self.head_dim) * 0.1)

    def rel_shift(self, x: Tensor, left_context: int = 0) -> Tensor:
        (batch_size, num_heads, time1, n) = x.shape
        time2 = time1 + left_context
        assert (
            n == left_context + 2 * time1 - 1
        ), f"{n} == {left_context} + 2 * {time1} - 1"
        # Note: TorchScript requires explicit arg for stride()
        batch_stride = x.stride(0)
        head_stride = x.stride(1)
        time1_stride = x.stride(2)
        n_stride = x.stride(3)
        return x.as_strided(
            (batch_size, num_heads, time1, time2),
            (batch_stride, head_stride, time1_stride - n_stride, n_stride),
            storage_offset=n_stride * (time1 - 1),
        )

    def forward(self, query: Tensor, pos_emb: Tensor, left_context: int = 0) -> Tensor:
        tgt_len, bsz, embed_dim = query.size()
        num_heads, head_dim = self.num_heads, self.head_dim
        scaling = float(head_dim) ** -0.5

        q, k, v = self.in_proj(query).chunk(3, dim=-1)
        q = (q * scaling).contiguous().view(tgt_len, bsz, num_heads, head_dim)
        k = k.contiguous().view(-1, bsz, num_heads, head_dim)
        v = v.contiguous().view(-1, bsz * num_heads, head_dim).transpose(0, 1)

        q = q.transpose(0, 1)  # (batch, time1, head, d_k)

        pos_emb_bsz = pos_emb.size(0)
        assert pos_emb_bsz in (1, bsz)  # actually it is 1
        p = self.linear_pos(pos_emb).view(pos_emb_bsz, -1, num_heads, head_dim)
        # (batch, 2*time1, head, d_k) --> (batch, head, d_k, 2*time -1)
        p = p.permute(0, 2, 3, 1)

        q_with_bias_u = (q + self.pos_bias_u).transpose(1, 2)  # (batch, head, time1, d_k)
        q_with_bias_v = (q + self.pos_bias_v).transpose(1, 2)  # (batch, head, time1, d_k)

        k = k.permute(1, 2, 3, 0)  # (batch, head, d_k, time2)
        matrix_ac = torch.matmul(q_with_bias_u, k)  # (batch, head, time1, time2)

        matrix_bd = torch.matmul(q_with_bias_v, p)  # (batch, head, time1, 2*time1-1)
        matrix_bd = self.rel_shift(matrix_bd, left_context)

        attn_output_weights = matrix_ac + matrix_bd  # (batch, head, time1, time2)
        attn_output_weights = attn_output_weights.view(bsz * num_heads, tgt_len, -1)
        attn_output_weights = nn.functional.softmax(attn_output_weights, dim=-1)

        attn_output = torch.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
        return self.out_proj(attn_output)


class ConformerEncoderLayer(nn.Module):
    def __init__(self, d_model: int = 64, nhead: int = 4) -> None:
        super().__init__()
        self.encoder_pos = RelPositionalEncoding(d_model)
        self.self_attn = RelPositionMultiheadAttention(d_model, nhead)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.SiLU(),
                                          nn.Linear(4 * d_model, d_model))

    def forward(self, x: Tensor) -> Tensor:
        # x: (T, N, C)
        x, pos_emb = self.encoder_pos(x)
        x = x + self.self_attn(x, pos_emb)
        return x + self.feed_forward(x)


def make_model():
    return ConformerEncoderLayer().eval()


def example_inputs():
    return (torch.randn(23, 2, 64),)


def other_inputs():
    return [(torch.randn(37, 3, 64),), (torch.randn(11, 1, 64),)]


def probe_inputs():
    return other_inputs()
