"""A sequence-first (T, B, C) encoder keeps the first half of its frames with
`x[: round(x.shape[0] / 2)]`. ExportDB lists "Calling round on dynamic shapes" as NOT_SUPPORTED_YET:
torch.export with a dynamic dim 0 fails with "Constraints violated (dim0_x)!".

Source: https://pytorch.org/docs/stable/generated/exportdb/python.builtin.html#dynamic-shape-round
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "time"}}
BLIND = "domains-44"


class HalfFrameEncoder(nn.Module):
    """Projects (T, B, C) features and keeps the first half of the time steps."""

    def __init__(self, dim=16, hidden=32):
        super().__init__()
        self.proj = nn.Linear(dim, hidden)
        self.act = nn.GELU()

    def forward(self, x):
        x = self.act(self.proj(x))
        return x[: round(x.shape[0] / 2)]


def make_model():
    return HalfFrameEncoder()


def example_inputs():
    return (torch.randn(10, 2, 16),)


def other_inputs():
    return [(torch.randn(7, 2, 16),), (torch.randn(24, 2, 16),)]


def probe_inputs():
    return other_inputs()
