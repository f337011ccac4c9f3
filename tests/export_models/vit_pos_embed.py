"""A ViT whose position grid is resized with a scale computed in Python from the input width.

`float(cols + self.interpolate_offset)` turns the symbolic width into a Python float: the
dynamo exporter records the guard `Eq(ToFloat((s//4)) + 0.1, 8.1)` there and bakes the width in.
The export succeeds; onnxruntime fails at any other width.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PosEmbedViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch, self.side, self.dim = 4, 4, 8
        self.interpolate_offset = 0.1
        self.proj = nn.Conv2d(3, self.dim, self.patch, self.patch)
        self.pos_embed = nn.Parameter(torch.randn(1, self.side * self.side, self.dim))

    def interpolate_pos_encoding(self, rows: int, cols):
        grid = self.pos_embed.reshape(1, self.side, self.side, self.dim).permute(0, 3, 1, 2)
        scale_x = float(cols + self.interpolate_offset) / self.side
        grid = F.interpolate(grid, scale_factor=(1.0, scale_x), mode="bilinear")
        return grid.flatten(2).transpose(1, 2)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        tokens = self.proj(img).flatten(2).transpose(1, 2)
        pos = self.interpolate_pos_encoding(self.side, img.shape[3] // self.patch)
        return tokens + pos


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return PosEmbedViT()


def example_inputs():
    return (torch.randn(1, 3, 16, 32),)


DYNAMIC = {"img": {3: "width"}}


def probe_inputs():
    return [(torch.randn(1, 3, 16, 48),)]
