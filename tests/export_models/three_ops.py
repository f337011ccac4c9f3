"""Three operators neither exporter translates: cumprod, searchsorted and adaptive max pooling
with an output size that does not divide the input (as nn.AdaptiveMaxPool2d, a module the user
may not own). `onnxfix export --decompose` exports it without a source change."""

import torch
from torch import nn


class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d((3, 3))
        self.register_buffer("edges", torch.linspace(-2.0, 2.0, 9))

    def forward(self, image: torch.Tensor, scores: torch.Tensor):
        pooled = self.pool(image).flatten(1)
        growth = torch.cumprod(1 + 0.1 * scores, dim=1)
        return pooled, growth, torch.searchsorted(self.edges, scores)


def example_inputs():
    return torch.randn(2, 3, 8, 7), torch.randn(2, 6)
