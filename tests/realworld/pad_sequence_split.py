"""MiniCPM-V resampler: per-image patch counts split the flat tokens (`split(lengths.tolist())`), then
`torch.nn.utils.rnn.pad_sequence`; "pad_sequence() is not exportable, with neither legacy onnx.export nor
with dynamo_export".

Source: https://github.com/pytorch/pytorch/issues/127153
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"tokens": {0: "total"}, "lengths": {0: "images"}}


class Resampler(nn.Module):
    def forward(self, tokens, lengths):
        pieces = tokens.split(lengths.tolist())
        return pad_sequence(pieces, batch_first=True)


def make_model():
    return Resampler()


def example_inputs():
    return (torch.randn(7, 3), torch.tensor([4, 3]))


def other_inputs():
    return [(torch.randn(9, 3), torch.tensor([2, 5, 2])), (torch.randn(7, 3), torch.tensor([1, 6]))]


def probe_inputs():
    return other_inputs()
