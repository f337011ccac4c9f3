"""Segment Anything (transformers SamModel) mask-decoder attention: SamAttention._recombine_heads reshapes with
`batch // max(1, point_batch_size)`; the maintainer notes that this `max(...)` is not traceable, so it ends up as a
constant in the ONNX model, which leads to inference failures when the number of prompt points per image changes.

Source: https://github.com/huggingface/transformers/pull/23110
"""
import math

import torch
from torch import Tensor, nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"queries": {1: "point_batch_size", 2: "num_tokens"}, "keys": {1: "point_batch_size", 2: "image_tokens"}}
BLIND = "domains-12"


class SamMaskDecoderConfig:
    hidden_size = 256
    num_attention_heads = 8
    attention_downsample_rate = 2
    layer_norm_eps = 1e-6


class SamAttention(nn.Module):
    """
    SAM's attention layer that allows for downscaling the size of the embedding after projection to queries, keys, and
    values.
    """

    def __init__(self, config, downsample_rate=None):
        super().__init__()
        self.hidden_size = config.hidden_size

        downsample_rate = config.attention_downsample_rate if downsample_rate is None else downsample_rate

        self.internal_dim = config.hidden_size // downsample_rate
        self.num_attention_heads = config.num_attention_heads
        if self.internal_dim % config.num_attention_heads != 0:
            raise ValueError("num_attention_heads must divide hidden_size.")

        self.q_proj = nn.Linear(self.hidden_size, self.internal_dim)
        self.k_proj = nn.Linear(self.hidden_size, self.internal_dim)
        self.v_proj = nn.Linear(self.hidden_size, self.internal_dim)
        self.out_proj = nn.Linear(self.internal_dim, self.hidden_size)

    def _separate_heads(self, hidden_states: Tensor, num_attention_heads: int) -> Tensor:
        batch, point_batch_size, n_tokens, channel = hidden_states.shape
        c_per_head = channel // num_attention_heads
        hidden_states = hidden_states.reshape(batch * point_batch_size, n_tokens, num_attention_heads, c_per_head)
        return hidden_states.transpose(1, 2)

    def _recombine_heads(self, hidden_states: Tensor, point_batch_size: int) -> Tensor:
        batch, n_heads, n_tokens, c_per_head = hidden_states.shape
        hidden_states = hidden_states.transpose(1, 2)
        return hidden_states.reshape(
            batch // max(1, point_batch_size), point_batch_size, n_tokens, n_heads * c_per_head
        )

    def forward(self, query: Tensor, key: Tensor, value: Tensor) -> Tensor:
        # Input projections
        query = self.q_proj(query)
        key = self.k_proj(key)
        value = self.v_proj(value)

        point_batch_size = query.shape[1]
        # Separate into heads
        query = self._separate_heads(query, self.num_attention_heads)
        key = self._separate_heads(key, self.num_attention_heads)
        value = self._separate_heads(value, self.num_attention_heads)

        # SamAttention
        _, _, _, c_per_head = query.shape
        attn = query @ key.permute(0, 1, 3, 2)  # batch_size * point_batch_size  x N_heads x N_tokens x N_tokens
        attn = attn / math.sqrt(c_per_head)
        attn = torch.softmax(attn, dim=-1)

        # Get output
        out = attn @ value
        out = self._recombine_heads(out, point_batch_size)
        out = self.out_proj(out)

        return out


class SamTokenToImageBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = SamAttention(config, downsample_rate=1)
        self.layer_norm1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.cross_attn_token_to_image = SamAttention(config)
        self.layer_norm2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, queries, keys):
        attn_out = self.self_attn(query=queries, key=queries, value=queries)
        queries = self.layer_norm1(queries + attn_out)
        attn_out = self.cross_attn_token_to_image(query=queries, key=keys, value=keys)
        queries = self.layer_norm2(queries + attn_out)
        return queries


def make_model():
    return SamTokenToImageBlock(SamMaskDecoderConfig()).eval()


def example_inputs():
    # one image, a single prompt (point batch of 1), 5 prompt tokens against a 16x16 image embedding
    return (torch.randn(1, 1, 5, 256), torch.randn(1, 1, 256, 256))


def other_inputs():
    return [(torch.randn(1, 3, 7, 256), torch.randn(1, 3, 144, 256)),
            (torch.randn(1, 2, 4, 256), torch.randn(1, 2, 64, 256))]


def probe_inputs():
    return other_inputs()
