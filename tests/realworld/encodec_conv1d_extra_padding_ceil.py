"""EnCodec (audio codec used by MusicGen) streaming-friendly Conv1d: `_get_extra_padding_for_conv1d` computes
`ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)` from the input length; the
export warns "Converting a tensor to a Python float might cause the trace to be incorrect" and the padding
length is hard-coded to the example's.

Source: https://github.com/huggingface/transformers/pull/29913
"""
import math
from typing import Tuple

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"input_values": {0: "batch", 2: "samples"}}
BLIND = "domains-5"


class EncodecConfig:
    use_causal_conv = True
    pad_mode = "reflect"
    norm_type = "time_group_norm"


class EncodecConv1d(nn.Module):
    """Conv1d with asymmetric or causal padding and normalization."""

    def __init__(self, config, in_channels, out_channels, kernel_size, stride=1, dilation=1):
        super().__init__()
        self.causal = config.use_causal_conv
        self.pad_mode = config.pad_mode
        self.norm_type = config.norm_type
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        if self.norm_type == "time_group_norm":
            self.norm = nn.GroupNorm(1, out_channels)

    @staticmethod
    def _get_extra_padding_for_conv1d(
        hidden_states: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0
    ) -> int:
        """See `pad_for_conv1d`."""
        length = hidden_states.shape[-1]
        n_frames = (length - kernel_size + padding_total) / stride + 1
        ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
        return ideal_length - length

    @staticmethod
    def _pad1d(hidden_states: torch.Tensor, paddings: Tuple[int, int], mode: str = "zero", value: float = 0.0):
        length = hidden_states.shape[-1]
        padding_left, padding_right = paddings
        if not mode == "reflect":
            return nn.functional.pad(hidden_states, paddings, mode, value)

        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            hidden_states = nn.functional.pad(hidden_states, (0, extra_pad))
        padded = nn.functional.pad(hidden_states, paddings, mode, value)
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]

    def forward(self, hidden_states):
        kernel_size = self.conv.kernel_size[0]
        stride = self.conv.stride[0]
        dilation = self.conv.dilation[0]
        kernel_size = (kernel_size - 1) * dilation + 1  # effective kernel size with dilations
        padding_total = kernel_size - stride
        extra_padding = self._get_extra_padding_for_conv1d(hidden_states, kernel_size, stride, padding_total)

        if self.causal:
            hidden_states = self._pad1d(hidden_states, (padding_total, extra_padding), mode=self.pad_mode)
        else:
            padding_right = padding_total // 2
            padding_left = padding_total - padding_right
            hidden_states = self._pad1d(
                hidden_states, (padding_left, padding_right + extra_padding), mode=self.pad_mode
            )

        hidden_states = self.conv(hidden_states)

        if self.norm_type == "time_group_norm":
            hidden_states = self.norm(hidden_states)

        return hidden_states


class EncodecEncoderStub(nn.Module):
    def __init__(self, config=EncodecConfig()):
        super().__init__()
        self.layers = nn.ModuleList([
            EncodecConv1d(config, 1, 8, 7),
            nn.ELU(),
            EncodecConv1d(config, 8, 16, 8, stride=4),
            nn.ELU(),
            EncodecConv1d(config, 16, 16, 10, stride=5),
        ])

    def forward(self, input_values):
        hidden_states = input_values
        for layer in self.layers:
            hidden_states = layer(hidden_states)
        return hidden_states


def make_model():
    return EncodecEncoderStub().eval()


def example_inputs():
    return (torch.randn(1, 1, 400),)


def other_inputs():
    return [(torch.randn(2, 1, 523),), (torch.randn(1, 1, 297),)]


def probe_inputs():
    return other_inputs()
