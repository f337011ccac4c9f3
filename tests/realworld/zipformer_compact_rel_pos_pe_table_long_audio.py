"""sherpa-onnx Russian Zipformer (icefall export): files longer than about 20 s fail in onnxruntime at
`self_attn_weights/Reshape_3` ("Input shape:{1,1295,16}, requested shape:{-1,4589,4,4}"). Zipformer's
`CompactRelPositionalEncoding` keeps its table in `self.pe` and only rebuilds it in `extend_pe` when
`self.pe.size(0) < T * 2 - 1`; the exported graph keeps the table of export time, so for a longer input the
slice of `self.pe` is short and the attention's `pos_emb.reshape(-1, seq_len2, num_heads, pos_head_dim)` breaks.

Source: https://github.com/k2-fsa/sherpa-onnx/issues/1519
"""
import math

import torch
from torch import Tensor, nn

CLASS = "state"
FAMILY = "views"
DYNAMIC = {"x": {0: "frames"}}
BLIND = "domains-28"


class CompactRelPositionalEncoding(nn.Module):
    def __init__(self, embed_dim: int, dropout_rate: float, max_len: int = 1000, length_factor: float = 1.0):
        super().__init__()
        self.embed_dim = embed_dim
        assert embed_dim % 2 == 0, embed_dim
        self.dropout = nn.Dropout(dropout_rate)
        self.pe = None
        assert length_factor >= 1.0, length_factor
        self.length_factor = length_factor
        self.extend_pe(torch.tensor(0.0).expand(max_len))

    def extend_pe(self, x: Tensor, left_context_len: int = 0) -> None:
        """Reset the positional encodings."""
        T = x.size(0) + left_context_len
        if self.pe is not None:
            # self.pe contains both positive and negative parts
            # the length of self.pe is 2 * input_len - 1
            if self.pe.size(0) >= T * 2 - 1:
                self.pe = self.pe.to(dtype=x.dtype, device=x.device)
                return
        # if T == 4, x would contain [ -3, -2, 1, 0, 1, 2, 3 ]
        x = torch.arange(-(T - 1), T, device=x.device).to(torch.float32).unsqueeze(1)
        freqs = 1 + torch.arange(self.embed_dim // 2, device=x.device)
        compression_length = self.embed_dim ** 0.5
        x_compressed = (
            compression_length * x.sign() * ((x.abs() + compression_length).log() - math.log(compression_length))
        )
        length_scale = self.length_factor * self.embed_dim / (2.0 * math.pi)
        x_atan = (x_compressed / length_scale).atan()  # results between -pi and pi
        cosines = (x_atan * freqs).cos()
        sines = (x_atan * freqs).sin()
        pe = torch.zeros(x.shape[0], self.embed_dim, device=x.device)
        pe[:, 0::2] = cosines
        pe[:, 1::2] = sines
        pe[:, -1] = 1.0  # for bias.
        self.pe = pe.to(dtype=x.dtype)

    def forward(self, x: Tensor, left_context_len: int = 0) -> Tensor:
        self.extend_pe(x, left_context_len)
        x_size_left = x.size(0) + left_context_len
        # length of positive side: x.size(0) + left_context_len
        # length of negative side: x.size(0)
        pos_emb = self.pe[
            self.pe.size(0) // 2 - x_size_left + 1: self.pe.size(0) // 2 + x.size(0),
            :,
        ]
        pos_emb = pos_emb.unsqueeze(0)
        return self.dropout(pos_emb)


class RelPositionMultiheadAttentionWeights(nn.Module):
    def __init__(self, embed_dim=32, pos_dim=16, num_heads=4, query_head_dim=8, pos_head_dim=4):
        super().__init__()
        self.num_heads = num_heads
        self.query_head_dim = query_head_dim
        self.pos_head_dim = pos_head_dim
        key_head_dim = query_head_dim
        in_proj_dim = (query_head_dim + key_head_dim + pos_head_dim) * num_heads
        self.in_proj = nn.Linear(embed_dim, in_proj_dim)
        self.linear_pos = nn.Linear(pos_dim, num_heads * pos_head_dim, bias=False)

    def forward(self, x: Tensor, pos_emb: Tensor) -> Tensor:
        x = self.in_proj(x)
        query_head_dim = self.query_head_dim
        pos_head_dim = self.pos_head_dim
        num_heads = self.num_heads
        seq_len, batch_size, _ = x.shape
        query_dim = query_head_dim * num_heads
        q = x[..., 0:query_dim]
        k = x[..., query_dim: 2 * query_dim]
        p = x[..., 2 * query_dim:]
        q = q.reshape(seq_len, batch_size, num_heads, query_head_dim)
        p = p.reshape(seq_len, batch_size, num_heads, pos_head_dim)
        k = k.reshape(seq_len, batch_size, num_heads, query_head_dim)
        q = q.permute(2, 1, 0, 3)  # (head, batch, time1, query_head_dim)
        p = p.permute(2, 1, 0, 3)  # (head, batch, time1, pos_head_dim)
        k = k.permute(2, 1, 3, 0)  # (head, batch, d_k, time2)
        attn_scores = torch.matmul(q, k)

        pos_emb = self.linear_pos(pos_emb)
        seq_len2 = 2 * seq_len - 1
        pos_emb = pos_emb.reshape(-1, seq_len2, num_heads, pos_head_dim).permute(0, 2, 3, 1)
        # pos_emb: (batch or 1, head, pos_dim, seq_len2)
        pos_scores = torch.matmul(p, pos_emb)
        # (head, batch, time1, seq_len2) -> (head, batch, time1, time2) by the relative shift
        (num_heads, batch_size, time1, n) = pos_scores.shape
        rows = torch.arange(start=time1 - 1, end=-1, step=-1)
        cols = torch.arange(seq_len)
        rows = rows.repeat(batch_size * num_heads).unsqueeze(-1)
        indexes = rows + cols
        pos_scores = pos_scores.reshape(-1, n)
        pos_scores = torch.gather(pos_scores, dim=1, index=indexes)
        pos_scores = pos_scores.reshape(num_heads, batch_size, time1, seq_len)
        attn_scores = attn_scores + pos_scores
        return attn_scores.softmax(dim=-1)


class ZipformerAttentionBlock(nn.Module):
    def __init__(self):
        super().__init__()
        # the exported encoder keeps the table built for the export-time maximum length
        self.encoder_pos = CompactRelPositionalEncoding(16, dropout_rate=0.15, max_len=24, length_factor=1.0)
        self.self_attn_weights = RelPositionMultiheadAttentionWeights()

    def forward(self, x):  # x: (seq_len, batch, embed_dim)
        pos_emb = self.encoder_pos(x)
        return self.self_attn_weights(x, pos_emb)


def make_model():
    return ZipformerAttentionBlock().eval()


def example_inputs():
    return (torch.randn(20, 1, 32),)


def other_inputs():
    return [(torch.randn(40, 1, 32),), (torch.randn(13, 1, 32),)]


def probe_inputs():
    return other_inputs()
