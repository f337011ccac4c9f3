"""A gate on a reduction's value whose branches are two statements each, then anomalib's
calibrated normalization, which returns its input early while a buffer is still NaN: torch.export
cannot decide either `if` (GuardOnDataDependentSymNode); the legacy exporter keeps the example's
side of the gate for every input."""
import torch
from torch import nn


class Calibrated(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("low", torch.tensor(-1.0))
        self.register_buffer("high", torch.tensor(float("nan")))  # never calibrated

    def forward(self, x):
        x = self.proj(x)
        if x.mean() > 0:
            y = x * 2
            y = y.relu()
        else:
            y = x - 1
        return self.normalize(y)

    def normalize(self, y):
        if self.low.isnan() or self.high.isnan():
            return y
        y = (y - self.low) / (self.high - self.low)
        return y.clamp(min=0, max=1)


def make_model():
    torch.manual_seed(0)
    return Calibrated().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 8) + 3,)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(3, 8) - 3,), (torch.randn(1, 8) + 3,)]
