"""A PyTorch model fed a bfloat16 tensor as input and using Transpose, Sqrt and Ceil: the ops are defined
for bfloat16 in ONNX, but the onnxruntime CPU execution provider has no bfloat16 kernel for Sqrt / Ceil,
so the exported model cannot be run ("bfloat16 support missing for ONNX ops").

Source: https://github.com/microsoft/onnxruntime/issues/13262
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "seq"}}
BLIND = "operators-9"


class BF16Bucketize(nn.Module):
    def __init__(self, num_buckets=8):
        super().__init__()
        self.num_buckets = num_buckets

    def forward(self, x):
        x = x.transpose(1, 2)
        magnitude = torch.sqrt(x)
        return torch.ceil(magnitude * self.num_buckets)


def make_model():
    return BF16Bucketize().eval()


def example_inputs():
    return (torch.rand(2, 10, 4, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.rand(3, 7, 4, dtype=torch.bfloat16),), (torch.rand(1, 15, 4, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
