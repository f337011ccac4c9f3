"""ONX607 without a guard: mmcls's ViT returns its stored position table when the patch grid
matches the pretraining grid (`if src_shape[0] == dst_shape[0] and src_shape[1] == dst_shape[1]:
return pos_embed`) and interpolates it otherwise. Exported at the pretraining size, both
exporters keep the table and onnxruntime fails for other image sizes. Fixed (unsafely: for the
pretraining size the exported model interpolates to the same size) by skipping the shortcut
under export."""
import torch
import torch.nn.functional as F
from torch import nn


class ViTStem(nn.Module):
    def __init__(self, dim=16, patch=8, grid=(4, 4)):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.grid = grid
        self.pos_embed = nn.Parameter(torch.randn(1, dim, *grid))

    def resize_pos_embed(self, h, w):
        if h == self.grid[0] and w == self.grid[1]:
            return self.pos_embed
        return F.interpolate(self.pos_embed, size=(h, w), mode="bicubic", align_corners=False)

    def forward(self, x):
        x = self.proj(x)
        return (x + self.resize_pos_embed(x.shape[2], x.shape[3])).flatten(2).transpose(1, 2)


def make_model():
    torch.manual_seed(0)
    return ViTStem()


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def probe_inputs():
    return [(torch.randn(3, 3, 48, 40),), (torch.randn(1, 3, 24, 56),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
