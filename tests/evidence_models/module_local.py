"""Pyramid pooling through nn layers held in a ModuleList: `pool(x)` is F.adaptive_avg_pool2d,
which the legacy exporter refuses for bins that do not divide the input (and dynamo specializes
with dynamic sizes). Statically `pool` is a loop variable of unknown type; the recorded run shows
it an nn.AdaptiveAvgPool2d (UPerNet's PPM, pytorch/pytorch#64806)."""

import torch
from torch import nn


class PyramidLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.pools = nn.ModuleList(nn.AdaptiveAvgPool2d(scale) for scale in (2, 3))

    def forward(self, x):
        levels = [x.mean((-2, -1))]
        for pool in self.pools:
            levels.append(pool(x).flatten(1))
        return torch.cat(levels, 1)


def example_inputs():
    return (torch.randn(2, 4, 10, 7),)


def probe_inputs():
    return [(torch.randn(3, 4, 10, 7),)]


DYNAMIC = {"x": {0: "batch"}}
