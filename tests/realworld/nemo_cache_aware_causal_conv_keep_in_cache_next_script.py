"""NeMo cache-aware streaming Conformer, convolution module: `CausalConv1D.update_cache` prepends the cached
left context, builds `cache_keep_size = torch.tensor(input_x.size(-1) - self.cache_drop_size).clip(...)`, and
fills the next-step cache in place through a `@torch.jit.script` helper `keep_in_cache_next` (its comment:
"Current ONNX does not support a Tensor with a dimension of zero. Needed to use Torch script to skip this part")
plus `cache_next[self._cache_id, :, :, -cache_keep_size:] = ...`. "Streaming conformer CTC export" rewrites
this with plain Python sizes to export the streaming encoder. (Two conv modules of the encoder; the caches are
the model's streaming inputs/outputs.)

Source: https://github.com/NVIDIA/NeMo/pull/5837
"""
from typing import Union

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"audio_signal": {0: "batch", 2: "time"}, "cache_last_time": {1: "batch"}}
BLIND = "domains-77"


@torch.jit.script
def keep_in_cache_next(cache: torch.Tensor, cache_next: torch.Tensor, cache_keep_size: torch.Tensor, cache_id: int):
    # Current ONNX does not support a Tensor with a dimension of zero
    # Needed to use Torch script to skip this part when this case happens
    if cache_keep_size < cache_next.size(-1):
        cache_next[cache_id, :, :, :-cache_keep_size] = cache[cache_id, :, :, cache_keep_size:]
    return cache_next


class CausalConv1D(nn.Conv1d):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: Union[str, int] = 0, groups: int = 1, bias: bool = True) -> None:
        self.cache_drop_size = None
        if padding is None:
            self._left_padding = kernel_size - 1
            self._right_padding = stride - 1
        else:
            self._left_padding = padding
            self._right_padding = padding
        self._max_cache_len = self._left_padding
        self._cache_id = None
        super(CausalConv1D, self).__init__(in_channels=in_channels, out_channels=out_channels,
                                           kernel_size=kernel_size, stride=stride, padding=0,
                                           groups=groups, bias=bias)

    def update_cache(self, x, cache=None, cache_next=None):
        if cache is None:
            x = F.pad(x, pad=(self._left_padding, self._right_padding))
        else:
            input_x = x
            needed_cache = cache[self._cache_id, :, :, -self._max_cache_len :]
            x = F.pad(x, pad=(0, self._right_padding))
            x = torch.cat((needed_cache, x), dim=-1)

        if cache_next is not None:
            input_x_kept = input_x[:, :, : input_x.size(-1) - self.cache_drop_size]

            cache_keep_size = torch.tensor(input_x.size(-1) - self.cache_drop_size, dtype=torch.int64)
            cache_keep_size = cache_keep_size.clip(min=1, max=cache_next.size(-1))
            keep_in_cache_next(
                cache=cache, cache_next=cache_next, cache_keep_size=cache_keep_size, cache_id=self._cache_id
            )
            cache_next[self._cache_id, :, :, -cache_keep_size:] = input_x_kept[:, :, -cache_keep_size:]
        return x

    def forward(self, x, cache=None, cache_next=None):
        x = self.update_cache(x, cache=cache, cache_next=cache_next)
        x = super().forward(x)
        return x


class ConformerConvolution(nn.Module):
    def __init__(self, d_model, kernel_size):
        super().__init__()
        self.pointwise_conv1 = nn.Conv1d(d_model, d_model * 2, kernel_size=1)
        self.depthwise_conv = CausalConv1D(d_model, d_model, kernel_size, padding=None, groups=d_model)
        self.batch_norm = nn.BatchNorm1d(d_model)
        self.activation = nn.SiLU()
        self.pointwise_conv2 = nn.Conv1d(d_model, d_model, kernel_size=1)

    def forward(self, x, cache=None, cache_next=None):
        x = self.pointwise_conv1(x)
        x = F.glu(x, dim=1)
        x = self.depthwise_conv(x, cache=cache, cache_next=cache_next)
        x = self.activation(self.batch_norm(x))
        return self.pointwise_conv2(x)


class StreamingConvStack(nn.Module):
    def __init__(self, d_model=32, kernel_size=9, n_layers=2):
        super().__init__()
        self.layers = nn.ModuleList([ConformerConvolution(d_model, kernel_size) for _ in range(n_layers)])
        for i, layer in enumerate(self.layers):
            layer.depthwise_conv._cache_id = i
            layer.depthwise_conv.cache_drop_size = 0  # set by setup_streaming_params()

    def forward(self, audio_signal, cache_last_time):
        # cache_last_time: (n_layers, B, d_model, kernel_size - 1)
        cache_last_time_next = torch.zeros_like(cache_last_time)
        for layer in self.layers:
            audio_signal = audio_signal + layer(audio_signal, cache=cache_last_time, cache_next=cache_last_time_next)
        return audio_signal, cache_last_time_next


def make_model():
    return StreamingConvStack().eval()


def example_inputs():
    return (torch.randn(2, 32, 12), torch.randn(2, 2, 32, 8))


def other_inputs():
    # a longer chunk, and a chunk shorter than the cache (only part of the cache is shifted in)
    return [(torch.randn(3, 32, 16), torch.randn(2, 3, 32, 8)), (torch.randn(1, 32, 5), torch.randn(2, 1, 32, 8))]


def probe_inputs():
    return other_inputs()
