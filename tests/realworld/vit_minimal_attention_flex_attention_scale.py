"""ViT-style attention block whose core is `flex_attention(q, k, v, scale=self.scale)` from
torch.nn.attention.flex_attention over a fused qkv projection; the report's export of the block
(`export_for_inference`) fails inside flex_attention ("NYI: querying is_contiguous inside of vmap").

Source: https://github.com/pytorch/pytorch/issues/140849
"""
import torch
from torch import nn, Tensor
from torch.nn.attention.flex_attention import flex_attention

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
BLIND = "operators-27"


class MinimalAttention(nn.Module):
    """Minimal reproduction of Attention layer using flex_attention."""

    def __init__(self, dim, num_heads=8, qkv_bias=True):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5

        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Tensor) -> Tensor:
        B, N, C = x.shape  # Flattened spatial dimensions with batch
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(0, 3, 2, 1, 4)
        q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]

        # Compute attention output using flex_attention
        attn_out = flex_attention(q, k, v, scale=self.scale)
        return self.proj(attn_out.transpose(1, 2).reshape(B, N, C))


def make_model():
    return MinimalAttention(dim=64, num_heads=8).eval()


def example_inputs():
    return (torch.randn(2, 128, 64),)


def other_inputs():
    return [(torch.randn(3, 64, 64),), (torch.randn(1, 256, 64),)]


def probe_inputs():
    return other_inputs()
