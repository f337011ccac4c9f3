"""icefall wenetspeech pruned_transducer_stateless5 conformer: `RelPositionMultiheadAttention.rel_shift`
asserts `n == left_context + 2 * time1 - 1` on the sizes and builds the relative-position shift with
`x.as_strided(...)` whose sizes, strides and storage offset are computed from `x.shape`/`x.stride()`.
Exporting the encoder to ONNX for the Triton server broke on it; the fix (#796) swapped in an
arange+gather version under `torch.jit.is_tracing()` and skipped the assert while tracing.

Source: https://github.com/k2-fsa/icefall/pull/796
"""
import math
from typing import Tuple

import torch
from torch import Tensor, nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "domains-40"


class RelPositionalEncoding(torch.nn.Module):
    def __init__(self, d_model: int, dropout_rate: float, max_len: int = 5000) -> None:
        super(RelPositionalEncoding, self).__init__()
        self.d_model = d_model
        self.dropout = torch.nn.Dropout(p=dropout_rate)
        self.pe = None
        self.extend_pe(torch.tensor(0.0).expand(1, max_len))

    def extend_pe(self, x: Tensor, left_context: int = 0) -> None:
        x_size_1 = x.size(1) + left_context
        pe_positive = torch.zeros(x_size_1, self.d_model)
        pe_negative = torch.zeros(x_size_1, self.d_model)
        position = torch.arange(0, x_size_1, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(
            torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model)
        )
        pe_positive[:, 0::2] = torch.sin(position * div_term)
        pe_positive[:, 1::2] = torch.cos(position * div_term)
        pe_negative[:, 0::2] = torch.sin(-1 * position * div_term)
        pe_negative[:, 1::2] = torch.cos(-1 * position * div_term)
        pe_positive = torch.flip(pe_positive, [0]).unsqueeze(0)
        pe_negative = pe_negative[1:].unsqueeze(0)
        pe = torch.cat([pe_positive, pe_negative], dim=1)
        self.pe = pe.to(device=x.device, dtype=x.dtype)

    def forward(self, x: torch.Tensor, left_context: int = 0) -> Tuple[Tensor, Tensor]:
        x_size_1 = x.size(1) + left_context
        pos_emb = self.pe[
            :,
            self.pe.size(1) // 2 - x_size_1 + 1 : self.pe.size(1) // 2 + x.size(1),  # noqa E203
        ]
        return self.dropout(x), self.dropout(pos_emb)


class RelPositionMultiheadAttention(nn.Module):
    def __init__(self, embed_dim: int, num_heads: int) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.in_proj = nn.Linear(embed_dim, 3 * embed_dim, bias=True)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=True)
        self.linear_pos = nn.Linear(embed_dim, embed_dim, bias=False)
        self.pos_bias_u = nn.Parameter(torch.randn(num_heads, self.head_dim) * 0.01)
        self.pos_bias_v = nn.Parameter(torch.randn(num_heads, self.head_dim) * 0.01)

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

    def forward(self, x: Tensor, pos_emb: Tensor, left_context: int = 0) -> Tensor:
        tgt_len, bsz, _ = x.size()
        q, k, v = self.in_proj(x).chunk(3, dim=-1)
        q = q.contiguous().view(tgt_len, bsz, self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, bsz, self.num_heads, self.head_dim)
        v = v.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        src_len = k.size(0)
        p = self.linear_pos(pos_emb).view(pos_emb.size(0), -1, self.num_heads, self.head_dim)
        p = p.transpose(1, 2)  # (batch, head, 2*time1-1, d_k)
        q_with_bias_u = (q + self.pos_bias_u).transpose(1, 2)  # (batch, head, time1, d_k)
        q_with_bias_v = (q + self.pos_bias_v).transpose(1, 2)
        k = k.permute(1, 2, 3, 0)  # (batch, head, d_k, time2)
        matrix_ac = torch.matmul(q_with_bias_u, k)  # (batch, head, time1, time2)
        matrix_bd = torch.matmul(q_with_bias_v, p.transpose(-2, -1))  # (batch, head, time1, 2*time1-1)
        matrix_bd = self.rel_shift(matrix_bd, left_context)
        attn_output_weights = (matrix_ac + matrix_bd) * (self.head_dim ** -0.5)
        attn_output_weights = attn_output_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_output_weights = torch.softmax(attn_output_weights, dim=-1)
        attn_output = torch.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len, bsz, self.embed_dim)
        return self.out_proj(attn_output)


class ConformerSelfAttentionBlock(nn.Module):
    def __init__(self, d_model=32, nhead=4):
        super().__init__()
        self.encoder_pos = RelPositionalEncoding(d_model, 0.0)
        self.self_attn = RelPositionMultiheadAttention(d_model, nhead)

    def forward(self, x):
        x, pos_emb = self.encoder_pos(x)
        x = x.permute(1, 0, 2)  # (N, T, C) -> (T, N, C)
        src = x + self.self_attn(x, pos_emb)
        return src.permute(1, 0, 2)


def make_model():
    return ConformerSelfAttentionBlock().eval()


def example_inputs():
    return (torch.randn(2, 19, 32),)


def other_inputs():
    return [(torch.randn(3, 31, 32),), (torch.randn(1, 7, 32),)]


def probe_inputs():
    return other_inputs()
