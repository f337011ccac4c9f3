"""Gemma-3 MLP (gate/up/down projections with the `gelu_pytorch_tanh` activation) in bfloat16: the
bf16 Gemma-3 1B ONNX model fails to load in onnxruntime because the tanh GELU (Gelu-20, or its
decomposition into Pow/Tanh/Mul) has no bfloat16 kernel - "NOT_IMPLEMENTED : Could not find an
implementation for Pow(15)" in the report (CUDA EP); the CPU EP has no bf16 kernels for these ops,
nor for the projections' MatMul.

Source: https://github.com/microsoft/onnxruntime/pull/25765
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 1: "seq"}}
BLIND = "operators-13"


class PytorchGELUTanh(nn.Module):
    """transformers' `gelu_pytorch_tanh` activation (ACT2FN["gelu_pytorch_tanh"])."""

    def forward(self, input):
        return nn.functional.gelu(input, approximate="tanh")


class Gemma3MLP(nn.Module):
    def __init__(self, hidden_size=64, intermediate_size=128):
        super().__init__()
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.gate_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.up_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=False)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        self.act_fn = PytorchGELUTanh()

    def forward(self, hidden_states):
        down_proj = self.down_proj(self.act_fn(self.gate_proj(hidden_states)) * self.up_proj(hidden_states))
        return down_proj


def make_model():
    return Gemma3MLP().to(torch.bfloat16).eval()


def example_inputs():
    return (torch.randn(2, 9, 64, dtype=torch.bfloat16),)


def other_inputs():
    return [(torch.randn(3, 5, 64, dtype=torch.bfloat16),), (torch.randn(1, 17, 64, dtype=torch.bfloat16),)]


def probe_inputs():
    return other_inputs()
