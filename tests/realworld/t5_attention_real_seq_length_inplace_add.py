"""T5-style self-attention with a key/value cache computes `real_seq_length = seq_length` and then
`real_seq_length += past_len`. The torch.onnx (TorchScript) docs warn: in tracing mode sizes from
`tensor.shape` are traced as tensors that share memory, so the in-place `+=` also changes
`seq_length` and the exported graph computes wrong values.

Source: https://pytorch.org/docs/stable/onnx_torchscript.html#avoid-in-place-operations-when-using-tensor-shape-in-tracing-mode
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"states": {0: "batch", 1: "seq"}, "past_key": {0: "batch", 1: "past"},
           "past_value": {0: "batch", 1: "past"}}
BLIND = "domains-44"


class CachedSelfAttention(nn.Module):
    def __init__(self, d_model=32, max_distance=16):
        super().__init__()
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.max_distance = max_distance
        self.relative_attention_bias = nn.Embedding(2 * max_distance + 1, 1)

    def compute_bias(self, query_length, key_length):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        relative_position = memory_position - context_position
        buckets = relative_position.clamp(-self.max_distance, self.max_distance) + self.max_distance
        return self.relative_attention_bias(buckets).squeeze(-1)  # (query_length, key_length)

    def forward(self, states, past_key, past_value):
        batch_size, seq_length = states.shape[:2]
        real_seq_length = seq_length
        real_seq_length += past_key.shape[1]
        key_length = real_seq_length

        q = self.q(states)
        k = torch.cat([past_key, self.k(states)], dim=1)
        v = torch.cat([past_value, self.v(states)], dim=1)
        scores = q @ k.transpose(1, 2)

        position_bias = self.compute_bias(real_seq_length, key_length)
        position_bias = position_bias[-seq_length:, :]
        attn = torch.softmax(scores + position_bias, dim=-1)
        return attn @ v, k, v


def make_model():
    return CachedSelfAttention()


def example_inputs():
    return (torch.randn(2, 5, 32), torch.randn(2, 3, 32), torch.randn(2, 3, 32))


def other_inputs():
    return [(torch.randn(3, 4, 32), torch.randn(3, 6, 32), torch.randn(3, 6, 32)),
            (torch.randn(1, 7, 32), torch.randn(1, 2, 32), torch.randn(1, 2, 32))]


def probe_inputs():
    return other_inputs()
