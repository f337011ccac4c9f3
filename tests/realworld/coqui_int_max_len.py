"""Coqui TTS: a maximum length converted with `int(...)` becomes a constant in the ONNX export
("fix: don't convert to int to avoid constant value in onnx exports").

Source: https://github.com/idiap/coqui-ai-TTS/pull/390
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "time"}, "x_lengths": {0: "batch"}}


class Encoder(nn.Module):
    def forward(self, x, x_lengths):
        max_len = int(x.size(2))
        x_mask = torch.arange(max_len).unsqueeze(0) < x_lengths.unsqueeze(1)
        return x * x_mask.unsqueeze(1).to(x.dtype)


def make_model():
    return Encoder()


def example_inputs():
    return (torch.randn(2, 3, 5), torch.tensor([5, 2]))


def other_inputs():
    return [(torch.randn(3, 3, 8), torch.tensor([8, 1, 6])), (torch.randn(1, 3, 2), torch.tensor([1]))]


def probe_inputs():
    return other_inputs()
