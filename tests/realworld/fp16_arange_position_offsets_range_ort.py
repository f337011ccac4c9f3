"""Half-precision sequence model that builds its position offsets with
`torch.arange(end=x.shape[0], dtype=torch.float16)`: the ONNX Range op has no float16 type in its
schema, so the exported graph is rejected by onnxruntime ("Type 'tensor(float16)' of input parameter
... of operator (Range) ... is invalid"); the report asks for float16/bfloat16 in Range.

Source: https://github.com/onnx/onnx/issues/6757
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "length"}}
BLIND = "operators-9"


class HalfPositionShift(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Parameter(torch.randn(dim, dtype=torch.float16) * 0.1)

    def forward(self, x):
        positions = torch.arange(end=x.shape[0], dtype=torch.float16)
        return x + positions[:, None] * self.proj


def make_model():
    return HalfPositionShift().eval()


def example_inputs():
    return (torch.randn(7, 16, dtype=torch.float16),)


def other_inputs():
    return [(torch.randn(12, 16, dtype=torch.float16),), (torch.randn(3, 16, dtype=torch.float16),)]


def probe_inputs():
    return other_inputs()
