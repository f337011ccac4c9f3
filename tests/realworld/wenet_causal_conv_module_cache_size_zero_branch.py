"""WeNet U2++ Conformer streaming encoder, `ConvolutionModule` with causal depthwise conv: forward pads
the input with `lorder` zeros when the conv cache is empty (`if cache.size(2) == 0`) and otherwise
concatenates the cache in front. Exporting the encoder chunk with export_onnx_cpu.py warns
"Converting a tensor to a Python boolean might cause the trace to be incorrect" at that line and the
asserts below it, so the exported graph keeps one branch whatever cache length it is fed.

Source: https://github.com/wenet-e2e/wenet/issues/1209
"""
from typing import Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {1: "T"}, "mask_pad": {2: "T"}, "cache": {2: "cache_t"}}
BLIND = "domains-55"


class ConvolutionModule(nn.Module):
    """ConvolutionModule in Conformer model."""

    def __init__(self, channels: int, kernel_size: int = 15, activation: nn.Module = nn.ReLU(),
                 norm: str = "batch_norm", causal: bool = False, bias: bool = True):
        super().__init__()
        self.pointwise_conv1 = nn.Conv1d(channels, 2 * channels, kernel_size=1, stride=1, padding=0, bias=bias)
        # self.lorder is used to distinguish if it's a causal convolution,
        # if self.lorder > 0: it's a causal convolution, the input will be
        #    padded with self.lorder frames on the left in forward.
        # else: it's a symmetrical convolution
        if causal:
            padding = 0
            self.lorder = kernel_size - 1
        else:
            assert (kernel_size - 1) % 2 == 0
            padding = (kernel_size - 1) // 2
            self.lorder = 0
        self.depthwise_conv = nn.Conv1d(channels, channels, kernel_size, stride=1, padding=padding,
                                        groups=channels, bias=bias)
        assert norm in ['batch_norm', 'layer_norm']
        if norm == "batch_norm":
            self.use_layer_norm = False
            self.norm = nn.BatchNorm1d(channels)
        else:
            self.use_layer_norm = True
            self.norm = nn.LayerNorm(channels)
        self.pointwise_conv2 = nn.Conv1d(channels, channels, kernel_size=1, stride=1, padding=0, bias=bias)
        self.activation = activation

    def forward(
        self,
        x: torch.Tensor,
        mask_pad: torch.Tensor = torch.ones((0, 0, 0), dtype=torch.bool),
        cache: torch.Tensor = torch.zeros((0, 0, 0)),
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        # exchange the temporal dimension and the feature dimension
        x = x.transpose(1, 2)  # (#batch, channels, time)

        # mask batch padding
        if mask_pad.size(2) > 0:  # time > 0
            x.masked_fill_(~mask_pad, 0.0)

        if self.lorder > 0:
            if cache.size(2) == 0:  # cache_t == 0
                x = nn.functional.pad(x, (self.lorder, 0), 'constant', 0.0)
            else:
                assert cache.size(0) == x.size(0)  # equal batch
                assert cache.size(1) == x.size(1)  # equal channel
                x = torch.cat((cache, x), dim=2)
            assert (x.size(2) > self.lorder)
            new_cache = x[:, :, -self.lorder:]
        else:
            # It's better we just return None if no cache is required,
            # However, for JIT export, here we just fake one tensor instead of
            # None.
            new_cache = torch.zeros((0, 0, 0), dtype=x.dtype, device=x.device)

        # GLU mechanism
        x = self.pointwise_conv1(x)  # (batch, 2*channel, dim)
        x = nn.functional.glu(x, dim=1)  # (batch, channel, dim)

        # 1D Depthwise Conv
        x = self.depthwise_conv(x)
        if self.use_layer_norm:
            x = x.transpose(1, 2)
        x = self.activation(self.norm(x))
        if self.use_layer_norm:
            x = x.transpose(1, 2)
        x = self.pointwise_conv2(x)
        # mask batch padding
        if mask_pad.size(2) > 0:  # time > 0
            x.masked_fill_(~mask_pad, 0.0)

        return x.transpose(1, 2), new_cache


def make_model():
    return ConvolutionModule(32, kernel_size=15, activation=nn.SiLU(), norm="layer_norm", causal=True).eval()


def _inputs(t, cache_t):
    x = torch.randn(1, t, 32)
    mask_pad = torch.ones(1, 1, t, dtype=torch.bool)
    cache = torch.randn(1, 32, cache_t)
    return (x, mask_pad, cache)


def example_inputs():
    return _inputs(16, 14)


def other_inputs():
    # first chunk of a stream: no conv cache yet; later chunks carry lorder frames
    return [_inputs(16, 0), _inputs(24, 14), _inputs(9, 0)]


def probe_inputs():
    return other_inputs()
