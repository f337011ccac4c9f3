"""A single bfloat16 nn.Conv2d (16 -> 16 channels, 3x3) with a bfloat16 input, exported with
torch.onnx.export: creating the onnxruntime session already fails because no Conv kernel is
registered for tensor(bfloat16) (the report expected bf16 to work as of onnxruntime 1.20).

Source: https://github.com/microsoft/onnxruntime/issues/25740
"""
import torch
from torch import bfloat16
from torch.nn import Conv2d

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-9"


class BF16Conv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv2d(16, 16, 3, dtype=bfloat16)

    def forward(self, input):
        return self.conv(input)


def make_model():
    return BF16Conv().eval()


def example_inputs():
    return (torch.rand(1, 16, 8, 8, dtype=bfloat16),)


def other_inputs():
    return [(torch.rand(2, 16, 12, 10, dtype=bfloat16),), (torch.rand(3, 16, 6, 14, dtype=bfloat16),)]


def probe_inputs():
    return other_inputs()
