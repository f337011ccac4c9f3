"""A feature encoder that builds position features and a context window with NumPy.

Code like this is common in older audio/vision models: the tensor is converted to an array,
processed with NumPy, and converted back. Eager PyTorch is happy; the legacy exporter bakes
every NumPy result into the graph as a constant.
"""

import torch
from torch import nn


class PositionFeatures(nn.Module):
    """Appends a position ramp (0, 1, 2, ...) over the time axis as an extra channel."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps = x.shape[1]
        ramp = torch.arange(steps, dtype=torch.float32)
        ramp = ramp[None, :, None].expand(x.shape[0], steps, 1)
        return torch.cat([x, ramp], dim=-1)


class ContextStack(nn.Module):
    """Stacks each frame with a scaled copy of itself (a cheap context window)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        frames = x.detach()
        stacked = torch.cat([frames, frames * 2], dim=-1)
        return stacked


class FeatureEncoder(nn.Module):
    def __init__(self, channels: int = 6, hidden: int = 16):
        super().__init__()
        self.position = PositionFeatures()
        self.context = ContextStack()
        self.proj = nn.Linear(2 * (channels + 1), hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.context(self.position(x))
        return torch.tanh(self.proj(features))


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return FeatureEncoder().eval()


def example_inputs():
    return (torch.randn(2, 5, 6),)


def probe_inputs():
    return [(torch.randn(2, 5, 6) * 3,), (torch.randn(3, 9, 6),)]


DYNAMIC = {0: {0: "batch", 1: "time"}}
