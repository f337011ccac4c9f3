"""A probabilistic regression head predicts a Gaussian (mean, scale) per step and turns it into exceedance
probabilities P(y > t) with `torch.erfc`; the report asks for `erfc` to be implemented for the ONNX exporter
(aten::erfc has no ONNX translation, so a model calling it cannot be exported).

Source: https://github.com/microsoft/onnxscript/issues/822
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "operators-15"


class GaussianExceedanceHead(nn.Module):
    def __init__(self, d_in=8, hidden=32, thresholds=(-1.0, 0.0, 1.0, 2.0)):
        super().__init__()
        self.encoder = nn.GRU(d_in, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, 2)
        self.register_buffer("thresholds", torch.tensor(thresholds))

    def forward(self, x):
        h, _ = self.encoder(x)
        mu, raw_scale = self.proj(h).unbind(-1)
        sigma = F.softplus(raw_scale) + 1e-3
        z = (self.thresholds - mu.unsqueeze(-1)) / (sigma.unsqueeze(-1) * math.sqrt(2.0))
        exceed = 0.5 * torch.erfc(z)  # P(y > t) under N(mu, sigma^2)
        return mu, sigma, exceed


def make_model():
    return GaussianExceedanceHead().eval()


def example_inputs():
    return (torch.randn(2, 24, 8),)


def other_inputs():
    return [(torch.randn(3, 36, 8),), (torch.randn(1, 10, 8),)]


def probe_inputs():
    return other_inputs()
