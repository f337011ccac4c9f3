"""ONX531 on joliGEN's guidance interval: `interval = (t < high) & ((low == 0) | (t > low))` with `low` and
`high` numbers of the configuration. `low == 0` is a Python bool: the legacy exporter records
`aten::bitwise_or(bool, Tensor)`, which TorchScript has no schema for, and the export fails. Fixed safely:
`torch.tensor(low == 0)`, a 0-d bool tensor, the same values and dtype."""
import torch
from torch import nn


class GuidedVelocity(nn.Module):
    def __init__(self, low: float = 0.0, high: float = 0.7, scale: float = 2.0):
        super().__init__()
        self.low, self.high, self.scale = low, high, scale
        self.cond = nn.Linear(4, 4)
        self.uncond = nn.Linear(4, 4)

    def forward(self, x, t):
        interval = (t < self.high) & ((self.low == 0) | (t > self.low))
        v_cond, v_uncond = self.cond(x), self.uncond(x)
        scale = torch.where(interval, self.scale, 1.0).unsqueeze(-1)
        return v_uncond + scale * (v_cond - v_uncond)


def make_model():
    torch.manual_seed(0)
    return GuidedVelocity()


def example_inputs():
    return (torch.randn(3, 4), torch.rand(3))


def probe_inputs():
    return [(torch.randn(6, 4), torch.rand(6)), (torch.randn(1, 4), torch.rand(1))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch"}}
