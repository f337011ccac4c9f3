"""ONX203 on HF DINOv2's position embeddings: `scale_factor=(float(height / math.sqrt(n)), ...)`,
`height` the patch rows plus 0.1. `float()` of the SymFloat pins the image size under torch.export,
and the resize by a float scale is read as a constant by both exporters (onnxruntime fails for
other sizes). Fixed safely: `float()` dropped (a true division is a float already), the resize
by the symbolic scale while exporting (ONX404), `int(height)` in the size check made
`torch.sym_int` (ONX203)."""
import math

import torch
from torch import nn


class PatchPositions(nn.Module):
    def __init__(self, dim=16, patch=4, grid=4):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.position_embeddings = nn.Parameter(torch.randn(1, grid * grid, dim))

    def interpolate_pos_encoding(self, embeddings, height, width):
        num_positions = self.position_embeddings.shape[1]
        dim = embeddings.shape[-1]
        height = height // self.patch
        width = width // self.patch
        height, width = height + 0.1, width + 0.1
        side = int(math.sqrt(num_positions))
        patch_pos_embed = self.position_embeddings.reshape(1, side, side, dim).permute(0, 3, 1, 2)
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed,
            scale_factor=(float(height / math.sqrt(num_positions)), float(width / math.sqrt(num_positions))),
            mode="bicubic",
            align_corners=False,
        )
        if int(height) != patch_pos_embed.shape[-2] or int(width) != patch_pos_embed.shape[-1]:
            raise ValueError("Width or height does not match with the interpolated position embeddings")
        return patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)

    def forward(self, pixel_values):
        _, _, height, width = pixel_values.shape
        embeddings = self.proj(pixel_values).flatten(2).transpose(1, 2)
        return embeddings + self.interpolate_pos_encoding(embeddings, height, width)


def make_model():
    torch.manual_seed(0)
    return PatchPositions()


def example_inputs():
    return (torch.randn(2, 3, 20, 24),)


def probe_inputs():
    return [(torch.randn(3, 3, 28, 16),), (torch.randn(1, 3, 12, 36),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
