"""Moshi/Mimi streaming encoder conv: in streaming mode `RawStreamingConv1d.forward` keeps the unconsumed tail of the
input in module state (`self._streaming_state.previous = input[..., offset:]`), concatenates it to the next chunk, and
computes `num_frames = max(0, int(math.floor((T - kernel) / stride) + 1))` with an `if num_frames > 0:` branch that
returns `torch.empty(B, C, 0)`. Qualcomm's ExecuTorch (torch.export) Mimi port rewrites it as "Static Mimi": "Remove all
states related variables", "Create previous tensor ahead of time", and passes `previous` in and out instead.

Source: https://github.com/pytorch/executorch/blob/main/examples/qualcomm/oss_scripts/moshi/model/static_conv.py
"""
import math
import typing as tp
from dataclasses import dataclass

import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {2: "frames"}}
BLIND = "domains-67"


class State:
    def reset(self) -> None:
        pass


@dataclass
class _StreamingConvState(State):
    previous: tp.Optional[torch.Tensor] = None

    def reset(self):
        self.previous = None


class RawStreamingConv1d(nn.Conv1d):
    # moshi/modules/streaming.py (StreamingModule state trimmed to the attribute it sets)
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert self.padding[0] == 0, "Padding should be handled outside."
        assert (
            self.stride[0] <= self.kernel_size[0]
        ), "stride must be less than kernel_size."
        self._streaming_state: tp.Optional[_StreamingConvState] = None

    def _init_streaming_state(self, batch_size: int) -> _StreamingConvState:
        return _StreamingConvState()

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        stride = self.stride[0]
        # Effective kernel size accounting for dilation.
        kernel = (self.kernel_size[0] - 1) * self.dilation[0] + 1
        if self._streaming_state is None:
            return super().forward(input)
        else:
            # Due to the potential overlap, we might have some cache of the previous time steps.
            previous = self._streaming_state.previous
            if previous is not None:
                input = torch.cat([previous, input], dim=-1)
            B, C, T = input.shape
            # We now compute the number of full convolution frames, i.e. the frames
            # that are ready to be computed.
            num_frames = max(0, int(math.floor((T - kernel) / stride) + 1))
            offset = num_frames * stride
            # We will compute `num_frames` outputs, and we are advancing by `stride`
            # for each of the frame, so we know the data before `stride * num_frames`
            # will never be used again.
            self._streaming_state.previous = input[..., offset:]
            if num_frames > 0:
                input_length = (num_frames - 1) * stride + kernel
                out = super().forward(input[..., :input_length])
            else:
                # Not enough data as this point to output some new frames.
                out = torch.empty(
                    B, self.out_channels, 0, device=input.device, dtype=input.dtype
                )
            return out


class MimiEncoderChunk(nn.Module):
    """Two strided streaming convs of the SEANet encoder, run chunk by chunk in streaming mode."""

    def __init__(self):
        super().__init__()
        self.conv_in = RawStreamingConv1d(1, 8, kernel_size=7, stride=1)
        self.down = RawStreamingConv1d(8, 16, kernel_size=4, stride=2)

    def start_streaming(self, batch_size: int = 1):
        for m in (self.conv_in, self.down):
            m._streaming_state = m._init_streaming_state(batch_size)

    def forward(self, x):
        y = torch.nn.functional.elu(self.conv_in(x))
        return self.down(y)


def make_model():
    model = MimiEncoderChunk().eval()
    model.start_streaming(1)  # `with model.streaming(1):` around the export / inference loop
    return model


def example_inputs():
    return (torch.randn(1, 1, 24),)


def other_inputs():
    return [(torch.randn(1, 1, 40),), (torch.randn(1, 1, 16),)]


def probe_inputs():
    return other_inputs()
