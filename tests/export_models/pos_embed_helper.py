"""mmcls's `resize_pos_embed` as a module-level helper: the grids it compares are parameters, a
size only at the call site (which the static rules do not follow); the run's specialized guard
names the line, and ONX607's unguarded form skips the shortcut under export."""
import torch
import torch.nn.functional as F
from torch import nn


def resize_pos_embed(pos_embed, src_shape, dst_shape):
    if src_shape[0] == dst_shape[0] and src_shape[1] == dst_shape[1]:
        return pos_embed
    weight = pos_embed.reshape(1, src_shape[0], src_shape[1], -1).permute(0, 3, 1, 2)
    resized = F.interpolate(weight, size=dst_shape, mode="bicubic", align_corners=False)
    return resized.flatten(2).transpose(1, 2)


class ViT(nn.Module):
    def __init__(self, dim=16, patch=8, grid=(4, 4)):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.grid = grid
        self.pos_embed = nn.Parameter(torch.randn(1, grid[0] * grid[1], dim))

    def forward(self, x):
        x = self.proj(x)
        size = (x.shape[2], x.shape[3])
        return x.flatten(2).transpose(1, 2) + resize_pos_embed(self.pos_embed, self.grid, size)


def make_model():
    torch.manual_seed(0)
    return ViT()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def probe_inputs():
    return [(torch.randn(3, 3, 48, 40),), (torch.randn(1, 3, 24, 56),)]
