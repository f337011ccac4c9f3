"""Attention module that calls `flex_attention(query, key, value, block_mask=block_mask)` with a causal
BlockMask built by `create_block_mask(causal_mask, batch, heads, seq_len, seq_len, device="cpu")` and passed
as a keyword argument; the report's graph capture for export cannot trace flex_attention with the
block_mask kwarg.

Source: https://github.com/pytorch/pytorch/issues/165948
"""
import torch
from torch.nn.attention.flex_attention import flex_attention, create_block_mask

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"query": {0: "batch"}, "key": {0: "batch"}, "value": {0: "batch"}}
BLIND = "operators-27"


class FlexAttentionModule(torch.nn.Module):
    def __init__(self, head_dim=64):
        super().__init__()
        self.head_dim = head_dim

    def forward(self, query, key, value, block_mask=None):
        return flex_attention(query, key, value, block_mask=block_mask)


def causal_mask(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


class CausalFlexAttention(torch.nn.Module):
    """Caller that builds the causal block mask for the current batch and passes it as a kwarg."""

    def __init__(self, head_dim=64):
        super().__init__()
        self.flex_model = FlexAttentionModule(head_dim=head_dim)

    def forward(self, query, key, value):
        batch_size, num_heads, seq_len, _ = query.shape
        block_mask = create_block_mask(
            causal_mask, batch_size, num_heads, seq_len, seq_len, device="cpu"
        )
        return self.flex_model(query, key, value, block_mask=block_mask)


def make_model():
    return CausalFlexAttention(head_dim=64).eval()


def _qkv(batch_size, num_heads=4, seq_len=128, head_dim=64):
    return (
        torch.randn(batch_size, num_heads, seq_len, head_dim),
        torch.randn(batch_size, num_heads, seq_len, head_dim),
        torch.randn(batch_size, num_heads, seq_len, head_dim),
    )


def example_inputs():
    return _qkv(2)


def other_inputs():
    return [_qkv(3), _qkv(1)]


def probe_inputs():
    return other_inputs()
