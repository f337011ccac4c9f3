"""`int(x.size(1) / 2)`: the dynamo exporter specializes the slice end to the export-time
width while the width stays dynamic; the output is wrong two lines later."""

import torch
from torch import nn


class HalfWidth(nn.Module):
    def forward(self, x):
        h = torch.relu(x) * 2
        half = h[:, : int(x.size(1) / 2)]
        total = half.sum(1, keepdim=True)
        return total + 1


def example_inputs():
    return (torch.linspace(-1, 1, 12).reshape(2, 6),)


def probe_inputs():
    return [(torch.linspace(-2, 2, 24).reshape(3, 8),)]


DYNAMIC = {"x": {0: "batch", 1: "width"}}
