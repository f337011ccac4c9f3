"""No rule: a data-dependent `assert` in forward (docs/rules-flow.md, measured)."""
import torch
from torch import nn


class LogScale(nn.Module):
    def forward(self, x: torch.Tensor):
        assert (x > 0).all(), "LogScale expects positive inputs"
        return torch.log(x) * 0.5


def make_model():
    return LogScale()


def example_inputs():
    # mean 10, spread 1: the generated probes (same mean and spread) stay positive
    torch.manual_seed(0)
    return (10 + torch.randn(3, 4),)


def probe_inputs():
    torch.manual_seed(1)
    return [(0.01 + torch.rand(3, 4),), (5 + torch.rand(6, 4),)]


DYNAMIC = {0: {0: "rows"}}
