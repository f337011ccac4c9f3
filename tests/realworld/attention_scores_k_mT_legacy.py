"""Scaled dot-product attention written with the batched-matrix transpose property `k.mT`. OpenVINO's
PyTorch frontend reports `No conversion rule found for operations: aten::mT` (tracked as "Support aten::mT"),
and the TorchScript ONNX exporter has no symbolic for it either ("Exporting the operator 'aten::mT' to ONNX
opset version ... is not supported").

Source: https://github.com/openvinotoolkit/openvino/issues/29707
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-31"


class SelfAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        attn = (q @ k.mT) / math.sqrt(q.shape[-1])
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj(out)


def make_model():
    return SelfAttention()


def example_inputs():
    return (torch.randn(2, 10, 32),)


def other_inputs():
    return [(torch.randn(3, 7, 32),), (torch.randn(1, 16, 32),)]


def probe_inputs():
    return other_inputs()
