"""Sizes a vocoder registers as buffers (DDSP-SVC's `register_buffer("block_size",
torch.tensor(block_size))`): a frame's sample offsets `torch.arange(self.block_size)`, a wave
padded by half of `self.win_length`, a sample rate dividing the pitch. torch.export lifts each buffer into
a graph input, so `arange` of one reads a value out of the data ("Could not extract specialized
integer from data-dependent expression"); in the ONNX model a buffer is a constant, and the run's
int_buffers_as_numbers repair reads each as the int it holds while exporting."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"f0": {0: "batch", 1: "frames"}}


class CombSource(nn.Module):
    def __init__(self, sampling_rate=16000, block_size=8, win_length=12):
        super().__init__()
        self.register_buffer("sampling_rate", torch.tensor(sampling_rate))
        self.register_buffer("block_size", torch.tensor(block_size))
        self.register_buffer("win_length", torch.tensor(win_length))
        self.bn = nn.BatchNorm1d(1)  # its num_batches_tracked, a 0-d integer buffer too, stays a tensor

    def forward(self, f0):
        n = torch.arange(self.block_size, device=f0.device)
        s0 = f0 / self.sampling_rate  # (B, T, 1)
        phase = torch.cumsum(s0 * (n + 1), dim=1)  # (B, T, block)
        wave = torch.sin(2 * torch.pi * phase).reshape(f0.shape[0], -1)
        padded = F.pad(wave, (self.win_length // 2, self.win_length // 2), mode="reflect")
        return self.bn(padded.unsqueeze(1)).squeeze(1)


def make_model():
    torch.manual_seed(0)
    return CombSource().eval()


def _f0(batch, frames, seed):
    g = torch.Generator().manual_seed(seed)
    return (100.0 + 200.0 * torch.rand(batch, frames, 1, generator=g),)


def example_inputs():
    return _f0(2, 10, 0)


def probe_inputs():
    return [_f0(1, 7, 1), _f0(3, 13, 2)]
