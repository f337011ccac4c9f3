"""FocalCodec ISTFT head: overlap-add through `nn.functional.fold` whose `output_size` is computed in
Python from the number of frames, `output_size = (T - 1) * self.hop_length + self.win_length`; exported
with a dynamic number of frames, audio of another length gives errors.

Source: https://github.com/lucadellalib/focalcodec/issues/9
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "frames"}}
BLIND = "domains-1"


class ISTFT(nn.Module):
    def __init__(self, n_fft=64, hop_length=16, win_length=64):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        self.non_causal_pad = (win_length - hop_length) // 2
        self.register_buffer("window", torch.hann_window(win_length))
        self.head = nn.Conv1d(32, win_length, 1)  # stands in for the vocoder's inverse-DFT projection

    def forward(self, x):
        ifft = self.head(x)  # [B, win_length, T]
        B, _, T = ifft.shape
        ifft = ifft * self.window[None, :, None]

        # Overlap and Add
        output_size = (T - 1) * self.hop_length + self.win_length
        output = nn.functional.fold(
            ifft,
            output_size=(1, output_size),
            kernel_size=(1, self.win_length),
            stride=(1, self.hop_length),
        )[:, 0, 0, self.non_causal_pad : -self.non_causal_pad]

        # Window envelope
        window_sq = self.window.square().expand(1, T, -1).transpose(1, 2)
        window_envelope = nn.functional.fold(
            window_sq,
            output_size=(1, output_size),
            kernel_size=(1, self.win_length),
            stride=(1, self.hop_length),
        ).squeeze()[self.non_causal_pad : -self.non_causal_pad]
        return output / window_envelope


def make_model():
    return ISTFT()


def example_inputs():
    return (torch.randn(1, 32, 20),)


def other_inputs():
    return [(torch.randn(2, 32, 31),), (torch.randn(1, 32, 12),)]


def probe_inputs():
    return other_inputs()
