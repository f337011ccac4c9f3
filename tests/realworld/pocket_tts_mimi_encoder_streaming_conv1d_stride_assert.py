"""Kyutai Pocket TTS Mimi encoder (the voice-cloning front end, exported with a dynamic `audio_len`): the waveform
is padded to whole frames by `pad_for_conv1d`, whose `get_extra_padding_for_conv1d` computes the pad with
`math.ceil(n_frames)` on `x.shape[-1]`, then run through causal `StreamingConv1d` layers that check
`assert T > 0 and T % S == 0, "Steps must be multiple of stride"` on the length; the ONNX export script
monkeypatches `conv.get_extra_padding_for_conv1d` and replaces `StreamingConv1d.forward` ("Removed assert for
trace") before exporting `mimi_encoder.onnx`.

Source: https://github.com/KevinAHM/pocket-tts-onnx-export/blob/29ec97e4ed71ffd95e0e8f394638c1e2cbe825c9/scripts/export_mimi_and_conditioner.py
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"audio": {2: "audio_len"}}
BLIND = "domains-83"


def get_extra_padding_for_conv1d(x, kernel_size, stride, padding_total=0):
    """See `pad_for_conv1d`."""
    length = x.shape[-1]
    n_frames = (length - kernel_size + padding_total) / stride + 1
    ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
    return ideal_length - length


def pad_for_conv1d(x, kernel_size, stride, padding_total=0):
    extra_padding = get_extra_padding_for_conv1d(x, kernel_size, stride, padding_total)
    return F.pad(x, (0, extra_padding))


class StreamingConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="constant"):
        super().__init__()
        self.pad_mode = pad_mode
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride)

    @property
    def _stride(self):
        return self.conv.stride[0]

    def init_state(self, batch_size, sequence_length):
        kernel = self.conv.kernel_size[0]
        previous = torch.zeros(batch_size, self.conv.in_channels, kernel - self._stride)
        first = torch.ones(batch_size, dtype=torch.bool)
        return dict(previous=previous, first=first)

    def forward(self, x, model_state):
        B, C, T = x.shape
        S = self._stride
        assert T > 0 and T % S == 0, "Steps must be multiple of stride"
        if model_state is None:
            state = self.init_state(B, 0)
        else:
            state = model_state
        TP = state["previous"].shape[-1]
        if TP and self.pad_mode == "replicate":
            assert T >= TP, "Not enough content to pad streaming."
            init = x[..., :1]
            state["previous"][:] = torch.where(state["first"].view(-1, 1, 1), init, state["previous"])
        if TP:
            x = torch.cat([state["previous"], x], dim=-1)
        y = self.conv(x)
        if TP:
            state["previous"][:] = x[..., -TP:]
            if self.pad_mode == "replicate":
                state["first"] = torch.zeros_like(state["first"])
        return y


class MimiEncoder(nn.Module):
    def __init__(self, frame_size=24):
        super().__init__()
        self.frame_size = frame_size
        self.layers = nn.ModuleList([
            StreamingConv1d(1, 8, 7, pad_mode="replicate"),
            StreamingConv1d(8, 16, 8, stride=4),
            StreamingConv1d(16, 32, 6, stride=3),
            StreamingConv1d(32, 16, 4, stride=2),
        ])

    def forward(self, audio):
        x = pad_for_conv1d(audio, self.frame_size, self.frame_size)
        for layer in self.layers:
            x = F.elu(layer(x, model_state=None))
        return x.transpose(-1, -2)


def make_model():
    return MimiEncoder().eval()


def example_inputs():
    return (torch.randn(1, 1, 100),)


def other_inputs():
    return [(torch.randn(1, 1, 257),), (torch.randn(1, 1, 48),)]


def probe_inputs():
    return other_inputs()
