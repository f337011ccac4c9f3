"""Streaming audio FIFO: a registered buffer `wavbuf` is replaced in forward by
`torch.cat([self.wavbuf, x])[-self.size:]` so each call sees the previous chunks; the report says the exported ONNX
model returns the same thing on every run because the buffer update is not kept between inference calls.

Source: https://github.com/pytorch/pytorch/issues/70280
"""
import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "samples"}}
BLIND = "domains-5"


class WavBuffer(nn.Module):
    def __init__(self, size=10):
        super().__init__()
        self.size = size
        wavbuf = torch.zeros(size)
        self.register_buffer('wavbuf', wavbuf)

    def forward(self, x):
        self.wavbuf = torch.cat([self.wavbuf, x])[-self.size:]
        return self.wavbuf


def make_model():
    return WavBuffer(10)


def example_inputs():
    return (torch.ones(5),)


def other_inputs():
    return [(torch.randn(3),), (torch.randn(7),), (torch.randn(4),)]


def probe_inputs():
    return other_inputs()
