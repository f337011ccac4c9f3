"""NeMo cache-aware streaming Conformer layer (attention + convolution caches): the encoder allocates
`cache_last_channel_next = torch.zeros_like(...)` / `cache_last_time_next = torch.zeros_like(...)` and every
layer writes its next-step cache into them in place; in `CausalConv1D.update_cache` the amount kept is a tensor,
`cache_keep_size = torch.clip(torch.tensor(x.size(-1) - self.cache_drop_size, ...), min=1, max=...)`, used as
slice bounds of `cache_next[self._cache_id, :, :, -cache_keep_size:] = ...`. `ExportableEncDecModel` said "currently
the ONNX conversion does not fully work for this case"; "Cache handling without input tensors mutation" returns
the new caches from each layer instead. (Two layers: MHA with cache + causal depthwise conv with cache.)

Source: https://github.com/NVIDIA/NeMo/pull/6980
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"audio_signal": {0: "batch", 1: "time"}, "cache_last_channel": {1: "batch"},
           "cache_last_time": {1: "batch"}}
BLIND = "domains-77"


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head, n_feat, max_cache_len=0):
        super(MultiHeadAttention, self).__init__()
        self.cache_drop_size = None
        self.d_k = n_feat // n_head
        self.s_d_k = math.sqrt(self.d_k)
        self.h = n_head
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)
        self.linear_v = nn.Linear(n_feat, n_feat)
        self.linear_out = nn.Linear(n_feat, n_feat)
        self._max_cache_len = max_cache_len
        self._cache_id = None

    def forward(self, query, key, value, mask, pos_emb=None, cache=None, cache_next=None):
        key, value, query = self.update_cache(key=key, value=value, query=query, cache=cache, cache_next=cache_next)
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(key).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        v = self.linear_v(value).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / self.s_d_k
        attn = torch.softmax(scores, dim=-1)
        x = torch.matmul(attn, v).transpose(1, 2).reshape(n_batch, -1, self.h * self.d_k)
        return self.linear_out(x)

    def update_cache(self, key, value, query, cache, cache_next):
        if cache is not None:
            key = value = torch.cat([cache[self._cache_id], key], dim=1)
            q_keep_size = query.shape[1] - self.cache_drop_size
            if cache_next is not None:
                cache_next[self._cache_id, :, :-q_keep_size, :] = cache[self._cache_id, :, q_keep_size:, :]
                cache_next[self._cache_id, :, -q_keep_size:, :] = query[:, :q_keep_size, :]
        return key, value, query


class CausalConv1D(nn.Conv1d):
    def __init__(self, in_channels, out_channels, kernel_size, groups=1):
        self.cache_drop_size = None
        self._left_padding = kernel_size - 1
        self._right_padding = 0
        self._max_cache_len = self._left_padding
        self._cache_id = None
        super(CausalConv1D, self).__init__(in_channels, out_channels, kernel_size, padding=0, groups=groups)

    def update_cache(self, x, cache=None, cache_next=None):
        if cache is None:
            new_x = F.pad(x, pad=(self._left_padding, self._right_padding))
        else:
            new_x = F.pad(x, pad=(0, self._right_padding))
            new_x = torch.cat([cache[self._cache_id], new_x], dim=-1)
            # todo: we should know input_x.size(-1) at config time
            if cache_next is not None:
                cache_keep_size = torch.tensor(x.size(-1) - self.cache_drop_size, dtype=torch.int64, device=x.device)
                cache_keep_size = torch.clip(cache_keep_size, min=1, max=cache_next.size(-1))
                cache_next[self._cache_id, :, :, :-cache_keep_size] = cache[self._cache_id, :, :, cache_keep_size:]
                cache_next[self._cache_id, :, :, -cache_keep_size:] = x[:, :, :cache_keep_size]
        return new_x

    def forward(self, x, cache=None, cache_next=None):
        x = self.update_cache(x, cache=cache, cache_next=cache_next)
        return super().forward(x)


class ConformerLayer(nn.Module):
    def __init__(self, d_model, n_heads, conv_kernel_size, att_cache_len):
        super().__init__()
        self.norm_self_att = nn.LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(n_heads, d_model, max_cache_len=att_cache_len)
        self.norm_conv = nn.LayerNorm(d_model)
        self.depthwise_conv = CausalConv1D(d_model, d_model, conv_kernel_size, groups=d_model)

    def forward(self, x, cache_last_channel=None, cache_last_time=None,
                cache_last_channel_next=None, cache_last_time_next=None):
        residual = x
        x = self.norm_self_att(residual)
        x = self.self_attn(query=x, key=x, value=x, mask=None, cache=cache_last_channel,
                           cache_next=cache_last_channel_next)
        residual = residual + x
        x = self.norm_conv(residual).transpose(1, 2)
        x = self.depthwise_conv(x, cache=cache_last_time, cache_next=cache_last_time_next)
        return residual + F.silu(x).transpose(1, 2)


class StreamingEncoder(nn.Module):
    def __init__(self, d_model=32, n_heads=4, conv_kernel_size=5, att_cache_len=10, n_layers=2):
        super().__init__()
        self.layers = nn.ModuleList(
            [ConformerLayer(d_model, n_heads, conv_kernel_size, att_cache_len) for _ in range(n_layers)])
        for i, layer in enumerate(self.layers):
            layer.self_attn._cache_id = i
            layer.depthwise_conv._cache_id = i
            layer.self_attn.cache_drop_size = 0  # set by setup_streaming_params()
            layer.depthwise_conv.cache_drop_size = 0

    def forward(self, audio_signal, cache_last_channel, cache_last_time):
        # cache_last_channel: (n_layers, B, att_cache_len, d_model); cache_last_time: (n_layers, B, d_model, k - 1)
        cache_last_channel_next = torch.zeros_like(cache_last_channel)
        cache_last_time_next = torch.zeros_like(cache_last_time)
        x = audio_signal
        for layer in self.layers:
            x = layer(x, cache_last_channel=cache_last_channel, cache_last_time=cache_last_time,
                      cache_last_channel_next=cache_last_channel_next, cache_last_time_next=cache_last_time_next)
        return x, cache_last_channel_next, cache_last_time_next


def make_model():
    return StreamingEncoder().eval()


def example_inputs():
    return (torch.randn(2, 6, 32), torch.randn(2, 2, 10, 32), torch.randn(2, 2, 32, 4))


def other_inputs():
    return [
        (torch.randn(3, 8, 32), torch.randn(2, 3, 10, 32), torch.randn(2, 3, 32, 4)),
        (torch.randn(1, 3, 32), torch.randn(2, 1, 10, 32), torch.randn(2, 1, 32, 4)),
    ]


def probe_inputs():
    return other_inputs()
