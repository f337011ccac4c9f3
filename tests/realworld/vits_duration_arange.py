"""Piper / VITS length regulator: `w_ceil = torch.ceil(w)`, `y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()`,
then a mask over `y_lengths.max()` frames; export fails with GuardOnDataDependentSymNode.

Source: https://github.com/OHF-Voice/piper1-gpl/issues/148
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"logw": {0: "batch", 2: "text"}}


def sequence_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)
    return x.unsqueeze(0) < length.unsqueeze(1)


class LengthRegulator(nn.Module):
    def forward(self, logw):
        w_ceil = torch.ceil(torch.exp(logw))
        y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()
        return sequence_mask(y_lengths).float()


def make_model():
    return LengthRegulator()


def example_inputs():
    return (torch.rand(2, 1, 4),)


def other_inputs():
    return [(torch.rand(3, 1, 6),), (torch.rand(1, 1, 4) * 2,)]


def probe_inputs():
    return other_inputs()
