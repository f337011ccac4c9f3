"""A probit-style scoring head computes log Phi(s) stably through the scaled complementary error function,
`log(0.5 * torch.special.erfcx(-s / sqrt(2))) - s**2 / 2`; the report tracks `erfcx` support in the exporter's
torch_lib (aten::special_erfcx), which the TorchScript-based exporter has no symbolic for.

Source: https://github.com/microsoft/onnxscript/issues/825
"""
import math

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "items"}}
BLIND = "operators-15"


def log_ndtr_neg(s):
    # stable for large negative s: Phi(s) = 0.5 * erfc(-s/sqrt2) = 0.5 * erfcx(-s/sqrt2) * exp(-s^2/2)
    return torch.log(0.5 * torch.special.erfcx(-s / math.sqrt(2.0))) - 0.5 * s * s


class ProbitRanker(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        s = self.mlp(x).squeeze(-1)
        s = -s.abs() - 0.5  # scores on the left tail where log(Phi) underflows
        return log_ndtr_neg(s)


def make_model():
    return ProbitRanker().eval()


def example_inputs():
    return (torch.randn(2, 10, 16),)


def other_inputs():
    return [(torch.randn(4, 17, 16),), (torch.randn(1, 5, 16),)]


def probe_inputs():
    return other_inputs()
