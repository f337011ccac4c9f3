"""`torch.quantization.FakeQuantize()` in eval mode with the observer disabled: exports with `dynamo=False`,
but `torch.onnx.export(..., dynamo=True)` cannot capture it.

Source: https://github.com/pytorch/pytorch/issues/167063
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}


class QuantStub(nn.Module):
    def __init__(self):
        super().__init__()
        self.fq = torch.quantization.FakeQuantize()
        self.fq.disable_observer()

    def forward(self, x):
        return self.fq(x)


def make_model():
    return QuantStub()


def example_inputs():
    return (torch.randn(2, 3) * 10,)


def other_inputs():
    return [(torch.randn(5, 3) * 10,), (torch.randn(1, 3) * 100,)]


def probe_inputs():
    return other_inputs()
