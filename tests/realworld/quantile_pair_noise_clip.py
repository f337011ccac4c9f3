"""Robust range estimate for a (B, N) signal: `torch.quantile(x, q, dim=-1, keepdim=True)` with
q = [noise, 1 - noise] built in forward, then used to clip and rescale the signal. The report's
torch.export stops with "DataDependentOutputException: aten.equal.default" inside quantile; the
TorchScript exporter has no translation for aten::quantile at all.

Source: https://github.com/pytorch/pytorch/issues/173659
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "n"}}
BLIND = "operators-2"


class QuantilePair(torch.nn.Module):
    def __init__(self, noise=0.1):
        super().__init__()
        self.noise = noise

    def forward(self, x):
        # x: (B, N)
        q = torch.tensor([self.noise, 1.0 - self.noise], device=x.device, dtype=x.dtype)
        lo, hi = torch.quantile(x, q, dim=-1, keepdim=True)
        x = torch.minimum(torch.maximum(x, lo), hi)
        return (x - lo) / (hi - lo + 1e-6)


def make_model():
    return QuantilePair(noise=0.1)


def example_inputs():
    return (torch.randn(1, 3200, dtype=torch.float32),)


def other_inputs():
    return [(torch.randn(4, 1000),), (torch.randn(2, 4321),)]


def probe_inputs():
    return other_inputs()
