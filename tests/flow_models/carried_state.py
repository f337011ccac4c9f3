"""ONX306: a streaming FIFO kept in a registered buffer and rewritten from itself in forward
(pytorch#70280). The ONNX model cannot carry it from run to run: both exporters keep one value of
the buffer as a constant and drop the update. Report only: the state must become an input and an
output."""
import torch
from torch import nn


class StreamingFifo(nn.Module):
    def __init__(self, size=6):
        super().__init__()
        self.size = size
        self.register_buffer("buf", torch.zeros(size))

    def forward(self, x):
        self.buf = torch.cat([self.buf, x])[-self.size:]
        return self.buf * 2


def make_model():
    return StreamingFifo()


def example_inputs():
    return (torch.ones(3),)


def probe_inputs():
    return [(torch.full((3,), 2.0),), (torch.full((3,), 3.0),)]
