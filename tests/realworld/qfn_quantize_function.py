"""DoReFa-style quantizer `qfn(torch.autograd.Function)`: `n = float(2**k - 1)`, `torch.round(input * n) / n`;
"ONNX export failed: Couldn't export Python operator qfn".

Source: https://github.com/pytorch/pytorch/issues/41179
"""
import torch
from torch import nn

CLASS = "autograd-function"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch"}}


class qfn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, k):
        n = float(2**k - 1)
        out = torch.round(input * n) / n
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clone(), None


class QuantAct(nn.Module):
    def forward(self, x):
        return qfn.apply(torch.sigmoid(x), 4)


def make_model():
    return QuantAct()


def example_inputs():
    return (torch.randn(2, 8),)


def other_inputs():
    return [(torch.randn(5, 8),), (torch.randn(1, 8) * 3,)]


def probe_inputs():
    return other_inputs()
