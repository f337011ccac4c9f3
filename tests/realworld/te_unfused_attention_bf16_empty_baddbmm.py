"""TransformerEngine UnfusedDotProductAttention run in bfloat16: it preallocates the score buffer with
`torch.empty(..., dtype=query_layer.dtype)` and fills it with `torch.baddbmm(..., beta=0.0, alpha=...)`.
The report says the BF16 model exports but fails in ONNX Runtime: the empty buffer becomes a
ConstantOfShape with a bfloat16 value, and the bf16 GEMM/MatMul has no onnxruntime kernel.

Source: https://github.com/NVIDIA/TransformerEngine/pull/271
"""
import math

import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"query_layer": {0: "seq", 1: "batch"}, "key_layer": {0: "seq", 1: "batch"},
           "value_layer": {0: "seq", 1: "batch"}}
BLIND = "operators-12"


class UnfusedDotProductAttention(nn.Module):
    """Parallel attention w/o QKV and Proj Gemms"""

    def __init__(self, norm_factor: float, attention_dropout: float = 0.0) -> None:
        super().__init__()
        self.norm_factor = norm_factor
        self.attention_dropout = nn.Dropout(attention_dropout)

    def forward(self, query_layer, key_layer, value_layer):
        batch_size, seqlen = query_layer.shape[1], query_layer.shape[0]

        # [b, np, sq, sk]
        output_size = (
            query_layer.size(1),
            query_layer.size(2),
            query_layer.size(0),
            key_layer.size(0),
        )

        # [sq, b, np, hn] -> [sq, b * np, hn]
        query_layer = query_layer.reshape(output_size[2], output_size[0] * output_size[1], -1)
        # [sk, b, np, hn] -> [sk, b * np, hn]
        key_layer = key_layer.reshape(output_size[3], output_size[0] * output_size[1], -1)

        # preallocting result tensor: [b * np, sq, sk]
        matmul_result = torch.empty(
            output_size[0] * output_size[1],
            output_size[2],
            output_size[3],
            dtype=query_layer.dtype,
            device=query_layer.device,
        )

        # Raw attention scores. [b * np, sq, sk]
        matmul_result = torch.baddbmm(
            matmul_result,
            query_layer.transpose(0, 1),  # [b * np, sq, hn]
            key_layer.transpose(0, 1).transpose(1, 2),  # [b * np, hn, sk]
            beta=0.0,
            alpha=(1.0 / self.norm_factor),
        )

        # change view to [b, np, sq, sk]
        attention_scores = matmul_result.view(*output_size)

        attention_probs = torch.softmax(attention_scores, dim=-1)
        attention_probs = self.attention_dropout(attention_probs)

        # [sk, b, np, hn] --> [b, np, sq, hn]
        output_size = (
            value_layer.size(1),
            value_layer.size(2),
            query_layer.size(0),
            value_layer.size(3),
        )

        # change view [sk, b * np, hn]
        value_layer = value_layer.reshape(value_layer.size(0), output_size[0] * output_size[1], -1)

        # change view [b * np, sq, sk]
        attention_probs = attention_probs.view(output_size[0] * output_size[1], output_size[2], -1)

        # matmul: [b * np, sq, hn]
        context_layer = torch.bmm(attention_probs, value_layer.transpose(0, 1))

        # change view [b, np, sq, hn]
        context_layer = context_layer.view(*output_size)

        # [b, np, sq, hn] --> [sq, b, np, hn]
        context_layer = context_layer.permute(2, 0, 1, 3).contiguous()

        # [sq, b, np, hn] --> [sq, b, hp]
        context_layer = context_layer.view(seqlen, batch_size, -1)

        return context_layer


def make_model():
    return UnfusedDotProductAttention(norm_factor=math.sqrt(16)).to(torch.bfloat16).eval()


def _qkv(sq, b, heads=4, hn=16):
    return tuple(torch.randn(sq, b, heads, hn, dtype=torch.bfloat16) for _ in range(3))


def example_inputs():
    return _qkv(8, 2)


def other_inputs():
    return [_qkv(5, 3), _qkv(13, 1)]


def probe_inputs():
    return other_inputs()
