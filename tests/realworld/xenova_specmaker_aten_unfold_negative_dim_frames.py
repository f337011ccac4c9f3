"""Spectrogram front end (from a Transformers.js conversion) that cuts a batch of waveforms into 512-sample
frames with hop 160 via `torch.ops.aten.unfold(x, -1, 512, 160)`. The report: exporting it with
dynamic batch/length failed inside torchlib's aten_unfold ("'SymbolicDim' object cannot be interpreted
as an integer"); the unfold over the last (negative) dim with a dynamic length is the failing part.

Source: https://github.com/microsoft/onnxscript/pull/2407
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "dim_x", 1: "length"}}
BLIND = "operators-35"


class SpecMaker(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.unfold(x, -1, 512, 160)


def make_model():
    return SpecMaker()


def example_inputs():
    input = torch.rand(16000)
    input_batch = torch.stack([input, input])
    return (input_batch,)


def other_inputs():
    return [(torch.rand(3, 8000),), (torch.rand(1, 12345),)]


def probe_inputs():
    return other_inputs()
