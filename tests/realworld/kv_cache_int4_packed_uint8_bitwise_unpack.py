"""Attention over a 4-bit quantised KV cache: keys arrive packed two nibbles per uint8 byte and are
unpacked in forward with `torch.bitwise_and` / `torch.bitwise_right_shift` before the q·kᵀ product;
the aten bitwise operators are what the report asks the exporter to map onto ONNX BitwiseAnd /
BitShift, and on uint8 the export does not come out right.

Source: https://github.com/onnx/onnx/issues/5497
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"query": {0: "batch", 1: "q_len"}, "packed_keys": {0: "batch", 1: "kv_len"},
           "scales": {0: "batch", 1: "kv_len"}}
BLIND = "operators-17"


class Int4KVAttentionScores(nn.Module):
    def __init__(self, head_dim=16):
        super().__init__()
        self.head_dim = head_dim

    def forward(self, query, packed_keys, scales):
        low = torch.bitwise_and(packed_keys, 15)
        high = torch.bitwise_and(torch.bitwise_right_shift(packed_keys, 4), 15)
        keys = torch.stack([low, high], dim=-1).flatten(-2)
        keys = (keys.to(torch.float32) - 8.0) * scales
        scores = torch.matmul(query, keys.transpose(-1, -2)) / self.head_dim ** 0.5
        return torch.softmax(scores, dim=-1)


def make_model():
    return Int4KVAttentionScores().eval()


def _inputs(b, q, s):
    return (torch.randn(b, q, 16), torch.randint(0, 256, (b, s, 8), dtype=torch.uint8),
            torch.rand(b, s, 1) * 0.1)


def example_inputs():
    return _inputs(2, 3, 10)


def other_inputs():
    return [_inputs(3, 5, 17), _inputs(1, 1, 4)]


def probe_inputs():
    return other_inputs()
