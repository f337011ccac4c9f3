"""Moshi/Mimi streaming transformer attention: in streaming mode `StreamingMultiheadAttention` keeps a `RingKVCache`
in `self._streaming_state` (a plain Python object, not a buffer) and, on every call, writes the new keys/values into
it in place (`self.cache[0].index_copy_(2, indexes[0], k)`), advances `self.end_offset.add_(T)` and
`state.offset[:] = ...`, so the next chunk attends to the previous ones. Qualcomm's ExecuTorch (torch.export) port
rewrites it as "Static Mimi": "Remove all inplace kv_cache & index updates, perform non inplace updates and return
updated output as next execution's input" (cache, end_index and end_offset passed in and out).

Source: https://github.com/pytorch/executorch/blob/main/examples/qualcomm/oss_scripts/moshi/model/static_mimi.py
"""
import typing as tp
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"query": {1: "steps"}}
BLIND = "domains-68"


class KVCacheResult(tp.NamedTuple):
    keys: torch.Tensor
    values: torch.Tensor
    positions: torch.Tensor


class RingKVCache:
    """Efficient streaming KVCache to be compatible with Cuda Graph (moshi/modules/transformer.py)."""

    def __init__(self, batch_size, num_heads, dim_per_head, capacity, respect_exec_mask=True,
                 device=torch.device("cpu"), dtype=torch.float32):
        self.capacity = capacity
        self.cache = torch.zeros((2, batch_size, num_heads, capacity, dim_per_head), device=device, dtype=dtype)
        self.respect_exec_mask = respect_exec_mask
        if self.respect_exec_mask:
            self.end_offset = torch.zeros(batch_size, device=device, dtype=torch.long)
        else:
            self.end_offset = torch.zeros(1, device=device, dtype=torch.long)

    def complete(self, k: torch.Tensor, v: torch.Tensor, exec_mask: torch.Tensor) -> KVCacheResult:
        assert k.shape[:-1] == v.shape[:-1], (k.shape, v.shape)
        B, H, T, D = k.shape
        assert T > 0
        indexes = torch.arange(T, device=self.end_offset.device, dtype=self.end_offset.dtype)
        indexes = indexes + self.end_offset.view(-1, 1)
        indexes = indexes % self.capacity
        if self.respect_exec_mask:
            this_indexes = indexes.view(B, 1, T, 1)
            this_indexes = this_indexes.expand(-1, H, T, D)
            self.cache[0].scatter_(2, this_indexes, k)
            self.cache[1].scatter_(2, this_indexes, v)
        else:
            self.cache[0].index_copy_(2, indexes[0], k)
            self.cache[1].index_copy_(2, indexes[0], v)

        keys = self.cache[0]
        values = self.cache[1]

        indexes = torch.arange(self.capacity, device=self.end_offset.device, dtype=torch.long)
        # end_index correspond to the actual index where the last value was written.
        last_offset = self.end_offset.view(-1, 1) + T - 1
        end_index = last_offset % self.capacity
        delta = indexes - end_index
        positions = torch.where(delta <= 0, last_offset + delta, last_offset + delta - self.capacity)
        if self.respect_exec_mask:
            self.end_offset[:] = torch.where(exec_mask, self.end_offset + T, self.end_offset)
        else:
            self.end_offset.add_(T)
        invalid = indexes >= self.end_offset.view(-1, 1)
        positions = torch.where(invalid, torch.full_like(positions, -1), positions)
        return KVCacheResult(keys, values, positions)


@dataclass
class _MHAState:
    batch_size: int
    device: torch.device
    kv_cache: RingKVCache
    offset: torch.Tensor
    offset_cpu: int

    def __post_init__(self):
        self.exec_mask = torch.ones(self.batch_size, dtype=torch.bool, device=self.device)


class StreamingMultiheadAttention(nn.Module):
    def __init__(self, embed_dim=32, num_heads=4, causal=True, context=16):
        super().__init__()
        self.embed_dim, self.num_heads, self.causal, self.context = embed_dim, num_heads, causal, context
        self.in_projs = nn.ModuleList([nn.Linear(embed_dim, 3 * embed_dim, bias=False)])
        self.out_projs = nn.ModuleList([nn.Linear(embed_dim, embed_dim, bias=False)])
        self._streaming_state: tp.Optional[_MHAState] = None

    def _init_streaming_state(self, batch_size: int) -> _MHAState:
        device, dtype = self.in_projs[0].weight.device, self.in_projs[0].weight.dtype
        kv_cache = RingKVCache(batch_size, self.num_heads, self.embed_dim // self.num_heads, self.context,
                               respect_exec_mask=True, device=device, dtype=dtype)
        return _MHAState(batch_size, device, kv_cache,
                         offset=torch.zeros(batch_size, device=device, dtype=torch.long), offset_cpu=0)

    def _complete_kv(self, k, v) -> KVCacheResult:
        state = self._streaming_state
        if state is None or state.kv_cache is None:
            T = k.shape[2]
            return KVCacheResult(k, v, torch.arange(T, device=k.device).expand(k.shape[0], -1))
        return state.kv_cache.complete(k, v, state.exec_mask)

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor):
        state = self._streaming_state
        B, T = query.shape[:2]
        if state is None:
            offset = torch.zeros(B, device=query.device, dtype=torch.long)
        else:
            offset = state.offset
        projected = self.in_projs[0](query)
        # rearrange(projected, "b t (p h d) -> p b h t d", p=3, h=self.num_heads)
        q, k, v = projected.view(B, T, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        k, v, pos_k = self._complete_kv(k, v)
        pos_k = pos_k[:, None]
        if self.causal:
            pos_q = offset.view(-1, 1, 1) + torch.arange(T, device=q.device, dtype=torch.long).view(-1, 1)
            delta = pos_q - pos_k
            attn_bias = (pos_k >= 0) & (delta >= 0)
            if self.context is not None:
                attn_bias = attn_bias & (delta < self.context)
            attn_bias = attn_bias[:, None]
        else:
            attn_bias = None
        x = F.scaled_dot_product_attention(q, k, v, attn_bias, dropout_p=0.0)
        x = x.transpose(1, 2).reshape(B, T, -1)  # rearrange(x, "b h t d -> b t (h d)")
        x = self.out_projs[0](x)
        if state is not None:
            state.offset[:] = torch.where(state.exec_mask, state.offset + T, state.offset)
            state.offset_cpu += T
        return x


class MimiTransformerStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(32)
        self.self_attn = StreamingMultiheadAttention()

    def forward(self, query):
        x = self.norm1(query)
        return query + self.self_attn(x, x, x)


def make_model():
    model = MimiTransformerStep().eval()
    # `with mimi.streaming(1):` around the export / decoding loop
    model.self_attn._streaming_state = model.self_attn._init_streaming_state(1)
    return model


def example_inputs():
    return (torch.randn(1, 2, 32),)


def other_inputs():
    return [(torch.randn(1, 3, 32),), (torch.randn(1, 1, 32),)]


def probe_inputs():
    return other_inputs()
