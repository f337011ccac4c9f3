"""A ViT-style encoder stem whose learned position table is resized to any image size.

Images are padded to a multiple of the patch size, cut into patches, and the learned
position grid is interpolated to the patch grid. The padding uses `math.ceil` on the image
size, the batch size comes from `len()`, and the table's gain is read out with `float()`:
the legacy exporter records all three as constants, so images of another size are padded
wrongly and another batch size fails.
"""

import torch
import torch.nn.functional as F
from torch import nn


def pad_to_patches(images: torch.Tensor) -> torch.Tensor:
    height, width = images.shape[-2:]
    pad_h = (height + 7) // 8 * 8 - height
    pad_w = (width + 7) // 8 * 8 - width
    return F.pad(images, (0, pad_w, 0, pad_h))


class PositionTable(nn.Module):
    def __init__(self, dim: int = 16, grid: int = 4):
        super().__init__()
        self.table = nn.Parameter(torch.randn(1, dim, grid, grid))
        self.gain = nn.Parameter(torch.tensor(0.5))

    def forward(self, rows, cols) -> torch.Tensor:
        resized = F.interpolate(self.table, size=(rows, cols), mode="bilinear", align_corners=False)
        return resized.flatten(2).transpose(1, 2) * self.gain


class EncoderStem(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.patches = nn.Conv2d(3, dim, kernel_size=8, stride=8)
        self.positions = PositionTable(dim)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        grid = self.patches(pad_to_patches(images))
        rows, cols = grid.shape[-2:]
        tokens = grid.flatten(2).transpose(1, 2) + self.positions(rows, cols)
        cls = self.cls.expand(images.shape[0], -1, -1)
        return torch.cat([cls, tokens], dim=1)


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return EncoderStem().eval()


def _images(seed: int, batch: int, height: int, width: int):
    return (torch.rand(batch, 3, height, width, generator=torch.Generator().manual_seed(seed)),)


def example_inputs():
    return _images(0, 2, 32, 40)


def probe_inputs():
    return [
        _images(1, 2, 32, 40),  # other values
        _images(2, 3, 50, 29),  # other batch, sizes that need padding
        _images(3, 1, 64, 64),
    ]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
