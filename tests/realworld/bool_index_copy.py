"""`idx = a > 0.5; w[idx] = b[idx]`: boolean-mask copy between tensors; onnxruntime rejected the exported
Gather on a bool index.

Source: https://github.com/microsoft/onnxruntime/issues/1807
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"a": {0: "n"}, "b": {0: "n"}, "w": {0: "n"}}


class Copy(nn.Module):
    def forward(self, a, b, w):
        w = w.clone()
        idx = a > 0.5
        w[idx] = b[idx]
        return w


def make_model():
    return Copy()


def example_inputs():
    return (torch.rand(6), torch.randn(6), torch.randn(6))


def other_inputs():
    return [(torch.rand(9), torch.randn(9), torch.randn(9)), (torch.rand(6), torch.randn(6), torch.randn(6))]


def probe_inputs():
    return other_inputs()
