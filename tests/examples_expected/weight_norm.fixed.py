"""A weight-normalised projection with a masked residual, written the old way with `.data`.

`.data` was the pre-0.4 way to get a tensor without autograd history. In forward it becomes a
constant under the legacy exporter and crashes or fails the dynamo exporter.
"""

import torch
import torch.nn.functional as F
from torch import nn


class WeightNormLinear(nn.Module):
    def __init__(self, features: int = 8):
        super().__init__()
        self.lin = nn.Linear(features, features)
        self.gain = nn.Parameter(torch.ones(features))

    def normalized_weight(self) -> torch.Tensor:
        weight = self.lin.weight.detach()
        return weight / weight.norm(dim=1, keepdim=True) * self.gain[:, None]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.linear(x, self.normalized_weight(), self.lin.bias)
        return out + x.detach() * 0.5


class MaskedResidual(nn.Module):
    def __init__(self, features: int = 8):
        super().__init__()
        self.proj = WeightNormLinear(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x) * 1.0
        y[:, 0] = 0  # the first channel is reserved
        return y + x


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return MaskedResidual().eval()


def example_inputs():
    return (torch.randn(4, 8),)


def probe_inputs():
    return [(torch.randn(4, 8) * 2,), (torch.randn(7, 8),)]


DYNAMIC = {0: {0: "batch"}}
