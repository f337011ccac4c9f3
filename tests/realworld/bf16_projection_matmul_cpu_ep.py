"""A bfloat16 projection layer (torch.matmul of bf16 activations with a bf16 weight, as in bf16 LLM /
encoder checkpoints) exported to ONNX: MatMul-13 allows bfloat16, but the onnxruntime CPU execution
provider registers no bfloat16 MatMul kernel, so the session fails with "Could not find an
implementation for MatMul(13)".

Source: https://github.com/microsoft/onnxruntime/issues/20630
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden": {0: "batch", 1: "seq"}}
BLIND = "operators-9"


class BF16Projection(nn.Module):
    def __init__(self, d_in=32, d_out=16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_in, d_out, dtype=torch.bfloat16) * 0.05)

    def forward(self, hidden):
        return torch.matmul(hidden, self.weight)


def make_model():
    return BF16Projection().eval()


def example_inputs():
    return (torch.randn(2, 9, 32, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(3, 5, 32, dtype=torch.bfloat16),), (torch.randn(1, 17, 32, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
