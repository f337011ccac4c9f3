"""Transformer Engine's RMSNorm op (used in its LLM layers) exports through
`torch.nn.functional.rms_norm(input_, input_.shape[-1:], weight, self.eps)`, with the weight shifted by 1
for zero-centered gamma; the PR reports that RMSNorm ONNX export is broken and rewrites it by hand
(pow/mean/rsqrt) to fix the export errors.

Source: https://github.com/NVIDIA/TransformerEngine/pull/2406
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "seq", 1: "batch"}}
BLIND = "operators-14"


class RMSNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, zero_centered_gamma=False):
        super().__init__()
        self.eps = eps
        self.zero_centered_gamma = zero_centered_gamma
        init = torch.zeros if zero_centered_gamma else torch.ones
        self.weight = nn.Parameter(init(normalized_shape) + 0.1 * torch.randn(normalized_shape))

    def forward(self, input_: torch.Tensor) -> torch.Tensor:
        weight = self.weight + 1 if self.zero_centered_gamma else self.weight
        return torch.nn.functional.rms_norm(input_, input_.shape[-1:], weight, self.eps)


class LayerNormMLP(nn.Module):
    """RMSNorm followed by a SwiGLU-free MLP, as in a TE transformer layer."""

    def __init__(self, hidden=64, ffn=128):
        super().__init__()
        self.norm = RMSNorm(hidden, eps=1e-5, zero_centered_gamma=True)
        self.fc1 = nn.Linear(hidden, ffn)
        self.fc2 = nn.Linear(ffn, hidden)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x)), approximate="tanh"))


def make_model():
    return LayerNormMLP()


def example_inputs():
    return (torch.randn(12, 2, 64),)


def other_inputs():
    return [(torch.randn(20, 3, 64),), (torch.randn(5, 1, 64),)]


def probe_inputs():
    return other_inputs()
