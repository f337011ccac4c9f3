"""TimesFM 2.5 (PyTorch) MultiHeadAttention decode step: the KV cache is written with a slice whose bounds come
from a tensor value, `start = decode_cache.next_index[0]; decode_cache.key[:, start:end] = key`; the PR reports
that Dynamo cannot trace a slice whose index is a runtime tensor value (an implicit .item()), so the decode
forward breaks the graph once per layer and cannot be captured whole.

Source: https://github.com/google-research/timesfm/pull/459
"""
import dataclasses
import math
from typing import Callable

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {
    "inputs_q": {0: "batch", 1: "n_patches"},
    "cache_key": {0: "batch"},
    "cache_value": {0: "batch"},
    "next_index": {0: "batch"},
    "num_masked": {0: "batch"},
}
BLIND = "domains-68"


@dataclasses.dataclass(frozen=False)
class DecodeCache:
  """Cache for decoding."""

  next_index: torch.Tensor
  num_masked: torch.Tensor
  key: torch.Tensor
  value: torch.Tensor


class RMSNorm(nn.Module):
  def __init__(self, num_features: int, *, epsilon: float = 1e-6):
    super().__init__()
    self.scale = nn.Parameter(torch.zeros(num_features))
    self.epsilon = epsilon

  def forward(self, inputs: torch.Tensor) -> torch.Tensor:
    var = torch.mean(torch.square(inputs), dim=-1, keepdim=True)
    normed_inputs = inputs * torch.rsqrt(var + self.epsilon)
    return normed_inputs * self.scale


def make_attn_mask(query_length: int, num_all_masked_kv: torch.Tensor,
                   query_index_offset: torch.Tensor | None = None, kv_length: int = 0) -> torch.Tensor:
  if kv_length == 0:
    kv_length = query_length
  q_index = torch.arange(query_length, device=num_all_masked_kv.device)[None, None, :, None]
  if query_index_offset is not None:
    q_index = q_index + query_index_offset[:, None, None, None]
  kv_index = torch.arange(kv_length, device=num_all_masked_kv.device)[None, None, None, :]
  return torch.logical_and(q_index >= kv_index, kv_index >= num_all_masked_kv[:, None, None, None])


def _dot_product_attention(query, key, value, mask=None):
  attn_weights = torch.einsum("...qhd,...khd->...hqk", query, key)
  if mask is not None:
    attn_weights = torch.where(mask, attn_weights, -torch.finfo(attn_weights.dtype).max / 2)
  attn_weights = F.softmax(attn_weights, dim=-1)
  return torch.einsum("...hqk,...khd->...qhd", attn_weights, value)


class PerDimScale(nn.Module):
  def __init__(self, num_dims: int):
    super().__init__()
    self.num_dims = num_dims
    self.per_dim_scale = nn.Parameter(torch.zeros(num_dims))

  def forward(self, x: torch.Tensor) -> torch.Tensor:
    scale_factor = 1.442695041 / math.sqrt(self.num_dims) * F.softplus(self.per_dim_scale)
    return x * scale_factor


class MultiHeadAttention(nn.Module):
  def __init__(self, num_heads: int, in_features: int,
               attention_fn: Callable[..., torch.Tensor] = _dot_product_attention):
    super().__init__()
    self.num_heads = num_heads
    self.in_features = in_features
    self.head_dim = in_features // num_heads
    self.attention_fn = attention_fn
    self.query = nn.Linear(self.in_features, self.in_features, bias=False)
    self.key = nn.Linear(self.in_features, self.in_features, bias=False)
    self.value = nn.Linear(self.in_features, self.in_features, bias=False)
    self.out = nn.Linear(self.in_features, self.in_features, bias=False)
    self.query_ln = RMSNorm(self.head_dim)
    self.key_ln = RMSNorm(self.head_dim)
    self.per_dim_scale = PerDimScale(num_dims=self.head_dim)

  def forward(self, inputs_q: torch.Tensor, *, decode_cache: DecodeCache | None = None,
              patch_mask: torch.Tensor | None = None) -> tuple[torch.Tensor, DecodeCache | None]:
    b, n_patches, _ = inputs_q.shape
    if patch_mask is None:
      patch_mask = torch.zeros(b, n_patches, dtype=torch.bool, device=inputs_q.device)

    query = self.query(inputs_q).view(b, n_patches, self.num_heads, self.head_dim)
    key = self.key(inputs_q).view(b, n_patches, self.num_heads, self.head_dim)
    value = self.value(inputs_q).view(b, n_patches, self.num_heads, self.head_dim)

    if decode_cache is None:
      num_masked = torch.sum(patch_mask.to(torch.int32), dim=-1)
      next_index = torch.zeros_like(num_masked, dtype=torch.int32)
    else:
      num_masked = torch.sum(patch_mask.to(torch.int32), dim=-1) + decode_cache.num_masked
      next_index = decode_cache.next_index.clone()

    query = self.query_ln(query)
    key = self.key_ln(key)
    query = self.per_dim_scale(query)

    if decode_cache is not None:
      _, decode_cache_size, _, _ = decode_cache.value.shape

      start = decode_cache.next_index[0]
      end = start + n_patches

      # Perform a single, vectorized slice assignment for the entire batch.
      decode_cache.key[:, start:end] = key
      decode_cache.value[:, start:end] = value

      key = decode_cache.key
      value = decode_cache.value
      decode_cache.next_index += n_patches
      decode_cache.num_masked = num_masked
      attn_mask = make_attn_mask(query_length=n_patches, num_all_masked_kv=num_masked,
                                 query_index_offset=next_index, kv_length=decode_cache_size)
    else:
      attn_mask = make_attn_mask(query_length=n_patches, num_all_masked_kv=num_masked)

    x = self.attention_fn(query, key, value, mask=attn_mask)
    x = x.reshape(b, n_patches, self.in_features)
    return self.out(x), decode_cache


class TimesFmDecodeStep(nn.Module):
  """One decode step of an attention layer with its cache passed in and returned (for serving)."""

  def __init__(self):
    super().__init__()
    self.attn = MultiHeadAttention(num_heads=4, in_features=32)

  def forward(self, inputs_q, cache_key, cache_value, next_index, num_masked):
    decode_cache = DecodeCache(next_index=next_index.clone(), num_masked=num_masked,
                               key=cache_key.clone(), value=cache_value.clone())
    out, decode_cache = self.attn(inputs_q, decode_cache=decode_cache)
    return out, decode_cache.key, decode_cache.value, decode_cache.next_index


def _inputs(b, n, start, cache_size=16):
  return (torch.randn(b, n, 32), torch.randn(b, cache_size, 4, 8), torch.randn(b, cache_size, 4, 8),
          torch.full((b,), start, dtype=torch.int32), torch.zeros(b, dtype=torch.int32))


def make_model():
  return TimesFmDecodeStep().eval()


def example_inputs():
  return _inputs(2, 3, 5)


def other_inputs():
  return [_inputs(3, 4, 8), _inputs(1, 2, 2)]


def probe_inputs():
  return other_inputs()
