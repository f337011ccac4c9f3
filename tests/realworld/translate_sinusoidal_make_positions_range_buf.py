"""pytorch/translate Transformer encoder: fairseq's SinusoidalPositionalEmbedding takes `bsz, seq_len = input.size()`
and `utils.make_positions` keeps a function-attribute cache `make_positions.range_buf` (grown with
`torch.arange(..., out=range_buf)` only when too short) that is sliced `[:tensor.size(1)]` and scattered with
`masked_scatter_`; the traced ONNX encoder froze the positions to the export-time sequence, so the PR adds an
`onnx_trace` path that "always inspects input tensor shape specifically for ONNX tracing".

Source: https://github.com/pytorch/translate/pull/206
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"src_tokens": {0: "batch", 1: "src_len"}}
BLIND = "domains-20"


def make_positions(tensor, padding_idx, left_pad):
    """Replace non-padding symbols with their position numbers."""
    max_pos = padding_idx + 1 + tensor.size(1)
    if not hasattr(make_positions, 'range_buf'):
        make_positions.range_buf = tensor.new()
    make_positions.range_buf = make_positions.range_buf.type_as(tensor)
    if make_positions.range_buf.numel() < max_pos:
        torch.arange(padding_idx + 1, max_pos, out=make_positions.range_buf)
    mask = tensor.ne(padding_idx)
    positions = make_positions.range_buf[:tensor.size(1)].expand_as(tensor)
    if left_pad:
        positions = positions - mask.size(1) + mask.long().sum(dim=1).unsqueeze(1)
    return tensor.clone().masked_scatter_(mask, positions[mask])


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim, padding_idx, left_pad, init_size=1024):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.left_pad = left_pad
        self.weights = SinusoidalPositionalEmbedding.get_embedding(init_size, embedding_dim, padding_idx)
        self.register_buffer('_float_tensor', torch.FloatTensor(1))

    @staticmethod
    def get_embedding(num_embeddings, embedding_dim, padding_idx=None):
        half_dim = embedding_dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
        emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
        emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
        if padding_idx is not None:
            emb[padding_idx, :] = 0
        return emb

    def forward(self, input, incremental_state=None):
        """Input is expected to be of size [bsz x seqlen]."""
        bsz, seq_len = input.size()
        max_pos = self.padding_idx + 1 + seq_len
        if self.weights is None or max_pos > self.weights.size(0):
            self.weights = SinusoidalPositionalEmbedding.get_embedding(
                max_pos, self.embedding_dim, self.padding_idx,
            )
        self.weights = self.weights.type_as(self._float_tensor)
        positions = make_positions(input.data, self.padding_idx, self.left_pad)
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach()


class TransformerEncoderEmbedding(nn.Module):
    def __init__(self, num_tokens=100, embed_dim=16, padding_idx=1):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_tokens, embed_dim, padding_idx=padding_idx)
        self.embed_scale = math.sqrt(embed_dim)
        self.embed_positions = SinusoidalPositionalEmbedding(embed_dim, padding_idx, left_pad=True)
        self.proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, src_tokens):
        x = self.embed_scale * self.embed_tokens(src_tokens)
        x = x + self.embed_positions(src_tokens)
        return self.proj(x)


def make_model():
    return TransformerEncoderEmbedding().eval()


def example_inputs():
    return (torch.randint(2, 100, (2, 7)),)


def other_inputs():
    return [(torch.randint(2, 100, (3, 12)),), (torch.randint(2, 100, (1, 4)),)]


def probe_inputs():
    return other_inputs()
