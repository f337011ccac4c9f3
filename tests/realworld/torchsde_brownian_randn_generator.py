"""An SDE sampler step (drift network + Brownian increment) whose noise comes from torchsde, which
draws Brownian increments with its own `torch.Generator` passed to `torch.randn(..., generator=)`;
the TorchScript exporter fails with "Unsupported prim::Constant kind: 'ival'" (the Generator
becomes a constant it cannot export); the dynamo exporter fails on the generator as well.

Source: https://github.com/pytorch/pytorch/issues/136860
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-9"


def _randn(size: list[int], device: torch.device):
    generator = torch.Generator(device=device)
    return torch.randn(size, device=device, generator=generator)


class SDEStep(nn.Module):
    def __init__(self, dim=16, dt=0.05, sigma=0.3):
        super().__init__()
        self.drift = nn.Sequential(nn.Linear(dim, 64), nn.Tanh(), nn.Linear(64, dim))
        self.dt = dt
        self.sigma = sigma

    def forward(self, x):
        val = _randn(x.shape, torch.device("cpu"))
        dW = val * math.sqrt(self.dt)
        return x + self.drift(x) * self.dt + self.sigma * dW


def make_model():
    return SDEStep().eval()


def example_inputs():
    return (torch.randn(2, 16),)


def other_inputs():
    return [(torch.randn(5, 16),), (torch.randn(1, 16),)]


def probe_inputs():
    return other_inputs()
