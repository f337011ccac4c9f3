"""Attention block that projects query/key/value with Linear layers and calls
`F.scaled_dot_product_attention(query, key, value, scale=self.scale)` on 3-D (batch, seq, d_model)
tensors with a query length different from the key/value length; the report says
scaled_dot_product_attention "fails to export to onnx".

Source: https://github.com/pytorch/pytorch/issues/135615
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"query_states": {0: "batch", 1: "seq_q"}, "key_states": {0: "batch", 1: "seq_kv"},
           "value_states": {0: "batch", 1: "seq_kv"}}
BLIND = "operators-4"


class ScaledDotProductAttentionModel(nn.Module):
    def __init__(self, d_model, scale):
        super(ScaledDotProductAttentionModel, self).__init__()
        self.scale = scale  # scaling factor for attention scores
        self.d_model = d_model  # dimensionality of input embeddings
        self.query_linear = nn.Linear(d_model, d_model)
        self.key_linear = nn.Linear(d_model, d_model)
        self.value_linear = nn.Linear(d_model, d_model)

    def forward(self, query_states, key_states, value_states):
        # Project the input states
        query = self.query_linear(query_states)
        key = self.key_linear(key_states)
        value = self.value_linear(value_states)

        # Perform scaled dot product attention
        attn_output = F.scaled_dot_product_attention(
            query, key, value, scale=self.scale
        )
        return attn_output


d_model = 64
scale = 1.0 / (d_model ** 0.5)


def make_model():
    return ScaledDotProductAttentionModel(d_model, scale)


def _inputs(b, lq, lkv):
    kv = torch.randn(b, lkv, d_model)
    return (torch.randn(b, lq, d_model), kv, kv.clone())


def example_inputs():
    return _inputs(2, 10, 15)


def other_inputs():
    return [_inputs(3, 7, 21), _inputs(1, 12, 5)]


def probe_inputs():
    return other_inputs()
