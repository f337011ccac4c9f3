"""fairseq SinusoidalPositionalEmbedding: forward recomputes the table `if self.weights is None or max_pos >
self.weights.size(0): self.weights = ...get_embedding(max_pos, ...)` and reassigns `self.weights =
self.weights.to(self._float_tensor)`; exporting fails because module attributes are set in forward
("prim::SetAttr" not supported).

Source: https://github.com/facebookresearch/fairseq/issues/2468
"""
import math

import torch
import torch.onnx.operators
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"input": {0: "batch", 1: "seq"}}
BLIND = "domains-2"


def make_positions(tensor, padding_idx: int, onnx_trace: bool = False):
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim, padding_idx, init_size=1024):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.weights = SinusoidalPositionalEmbedding.get_embedding(init_size, embedding_dim, padding_idx)
        self.onnx_trace = False
        self.register_buffer("_float_tensor", torch.FloatTensor(1))
        self.max_positions = int(1e5)

    @staticmethod
    def get_embedding(num_embeddings: int, embedding_dim: int, padding_idx=None):
        half_dim = embedding_dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
        emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
        emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
        if embedding_dim % 2 == 1:
            emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
        if padding_idx is not None:
            emb[padding_idx, :] = 0
        return emb

    def forward(self, input):
        bspair = torch.onnx.operators.shape_as_tensor(input)
        bsz, seq_len = bspair[0], bspair[1]
        max_pos = self.padding_idx + 1 + seq_len
        if self.weights is None or max_pos > self.weights.size(0):
            # recompute/expand embeddings if needed
            self.weights = SinusoidalPositionalEmbedding.get_embedding(max_pos, self.embedding_dim, self.padding_idx)
        self.weights = self.weights.to(self._float_tensor)

        positions = make_positions(input, self.padding_idx, onnx_trace=self.onnx_trace)
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach()


def make_model():
    return SinusoidalPositionalEmbedding(32, 0, init_size=8)


def example_inputs():
    return (torch.randint(1, 50, (2, 6)),)


def other_inputs():
    return [(torch.randint(1, 50, (3, 12)),), (torch.randint(1, 50, (1, 20)),)]


def probe_inputs():
    return other_inputs()
