"""ONX203 on a square root of a size: a Swin/ViT-style block folds its tokens back into the square
grid they came from, with the side `int(math.sqrt(L))` of the token count (extra tokens pass). The legacy exporter
records the export-time side (onnxruntime then fails to reshape other grids), and torch.onnx has
no translation of the square root of a symbolic size. Fixed safely: `_onnx_size_isqrt` is the
same `int(math.sqrt(L))` in eager and the integer square root, symbolic, while exporting."""
import math

import torch
from torch import nn


class SquareGrid(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(4)
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, tokens):
        B, L, C = tokens.shape
        H = W = int(math.sqrt(L))  # the largest square grid; the tokens past it pass through
        grid = self.norm(tokens[:, : H * W]).transpose(1, 2).reshape(B, C, H, W)
        mixed = self.conv(grid).flatten(2).transpose(1, 2) + tokens[:, : H * W]
        return torch.cat([mixed, tokens[:, H * W :]], dim=1)


def make_model():
    torch.manual_seed(0)
    return SquareGrid()


def example_inputs():
    return (torch.randn(2, 16, 4),)


def probe_inputs():
    return [(torch.randn(1, 49, 4),), (torch.randn(3, 9, 4),)]


DYNAMIC = {0: {0: "batch", 1: "tokens"}}
