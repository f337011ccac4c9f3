"""torch.nn.functional.scaled_dot_product_attention with a boolean attn_mask in which a whole row is
False (a padding token that attends to nothing): aten SDPA returns zeros for that row, but the
exported ONNX model computes something else for it (the report saw NaNs from onnxruntime), so
assert_close between eager and onnxruntime fails.

Source: https://github.com/microsoft/onnxscript/pull/2479
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "query": {0: "batch", 2: "seq"},
    "key": {0: "batch", 2: "seq"},
    "value": {0: "batch", 2: "seq"},
    "attn_mask": {0: "batch", 2: "seq", 3: "seq"},
}
BLIND = "operators-13"


class ScaledDotProductAttention(torch.nn.Module):
    def forward(self, query, key, value, attn_mask):
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)


def make_model():
    return ScaledDotProductAttention()


def _inputs(batch, seq):
    attn_mask = torch.ones(batch, 4, seq, seq).bool()  # boolean mask for attention
    attn_mask[0, 0, 0, :] = False  # masking an entire row (padding token)
    query = key = value = torch.randn(batch, 4, seq, 16)
    return (query, key, value, attn_mask)


def example_inputs():
    return _inputs(2, 8)


def other_inputs():
    return [_inputs(3, 5), _inputs(1, 11)]


def probe_inputs():
    return other_inputs()
