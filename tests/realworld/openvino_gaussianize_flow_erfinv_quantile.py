"""A normalizing-flow style Gaussianization layer maps features to (0, 1) with a sigmoid and then to
standard-normal quantiles with torch.erfinv (probit = sqrt(2) * erfinv(2u - 1)). OpenVINO had no
conversion for aten::erfinv, so such PyTorch models could not be converted without a workaround
(the PR that adds the op names normalizing flows and quantile functions as the users).

Source: https://github.com/openvinotoolkit/openvino/pull/34823
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "length"}}
BLIND = "operators-21"


class GaussianizeLayer(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(dim))
        self.log_scale = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        u = torch.sigmoid((x - self.loc) * torch.exp(-self.log_scale))
        u = u.clamp(self.eps, 1.0 - self.eps)
        z = math.sqrt(2.0) * torch.erfinv(2.0 * u - 1.0)
        return z


class FlowEncoder(nn.Module):
    def __init__(self, in_dim=16, dim=32):
        super().__init__()
        self.proj = nn.Linear(in_dim, dim)
        self.gauss = GaussianizeLayer(dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        z = self.gauss(h)
        return self.out(z)


def make_model():
    return FlowEncoder().eval()


def example_inputs():
    return (torch.randn(2, 10, 16),)


def other_inputs():
    return [(torch.randn(3, 7, 16),), (torch.randn(1, 25, 16),)]


def probe_inputs():
    return other_inputs()
