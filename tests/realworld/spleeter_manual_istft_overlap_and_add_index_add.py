"""Overlap-add stage of spleeter-pytorch's manual inverse STFT (the Core ML branch: irfft frames are
windowed, then `overlap_and_add` from Conv-TasNet scatters the subframes into the output with
`result.index_add_(-2, frame, subframe_signal)`; `torch.unfold` is replaced by an F.unfold polyfill because
coremltools lacked it). Converting the traced model fails with "PyTorch convert function for op
'index_add_' not implemented"; the overlapping frame indices repeat, which is also what the ONNX export of
index_add_ cannot handle.

Source: https://github.com/fwcd/spleeter-pytorch/issues/3
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {}  # the Core ML conversion traces one fixed clip length
BLIND = "operators-66"


def unfold(x: torch.Tensor, size: int, step: int) -> torch.Tensor:
    # polyfill for x.unfold(0, size, step) in terms of torch.nn.functional.unfold
    assert len(x.shape) == 1
    x = x[None, None, None]
    y = F.unfold(x, kernel_size=(1, size), stride=step)
    y = y.transpose(-1, -2)
    y = y[0]
    return y


def overlap_and_add(signal: torch.Tensor, frame_step: int):
    outer_dimensions = signal.size()[:-2]
    frames, frame_length = signal.size()[-2:]

    subframe_length = math.gcd(frame_length, frame_step)
    subframe_step = frame_step // subframe_length
    subframes_per_frame = frame_length // subframe_length
    output_size = frame_step * (frames - 1) + frame_length
    output_subframes = output_size // subframe_length

    subframe_signal = signal.view(*outer_dimensions, -1, subframe_length)

    frame = torch.arange(0, output_subframes).float()  # floats are needed to unfold with torch.nn.functional
    frame = unfold(frame, subframes_per_frame, subframe_step)
    frame = frame.clone().long()
    frame = frame.contiguous().view(-1)

    result = signal.new_zeros(*outer_dimensions, output_subframes, subframe_length)
    result.index_add_(-2, frame, subframe_signal)
    result = result.view(*outer_dimensions, -1)
    return result


class ManualISTFTTail(nn.Module):
    def __init__(self, win_length=256, hop_length=64):
        super().__init__()
        self.win_length = win_length
        self.hop_length = hop_length
        self.win = nn.Parameter(torch.hann_window(self.win_length), requires_grad=False)

    def forward(self, frames):
        # frames: (channels, n_frames, win_length), the output of torch.fft.irfft(stft, win_length)
        wav = frames * self.win
        wav = overlap_and_add(wav, self.hop_length)
        return wav


def make_model():
    return ManualISTFTTail().eval()


def example_inputs():
    return (torch.randn(2, 20, 256),)


def other_inputs():
    return [(torch.randn(2, 20, 256),), (torch.randn(2, 20, 256) * 3.0,)]


def probe_inputs():
    return other_inputs()
