"""Deformable DETR's multi-scale bookkeeping: each level's `(h, w)` collected from the feature
maps, `spatial_shapes = torch.as_tensor(...)`, the level start offsets from its areas' running
sum, and the attention reading it back (`value.split([H * W for H, W in shapes])`, `for lvl, (H, W)
in enumerate(shapes)`, a `.view` by them; Mask2Former's `[size.item() for size in split_sizes]`).
torch.export records the tensor as a constant of the example's sizes and the values read back are
unbacked: the export fails on a data-dependent guard. With size_tensors_kept it exports and
matches PyTorch on other image sizes; the source is not edited."""
import torch
import torch.nn.functional as F
from torch import nn


def levels_attention(value, shapes, locations):
    batch, _, channels = value.shape
    per_level = value.split([h * w for h, w in shapes], dim=1)
    out = 0
    for level, (h, w) in enumerate(shapes):
        grid = per_level[level].transpose(1, 2).reshape(batch, channels, h, w)
        out = out + F.grid_sample(grid, locations, align_corners=False).mean((2, 3))
    return out


class Levels(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Conv2d(3, 4, 3, 2, 1)
        self.second = nn.Conv2d(4, 4, 3, 2, 1)

    def forward(self, images):
        features = [self.first(images)]
        features.append(self.second(features[0]))
        shapes = [(f.shape[2], f.shape[3]) for f in features]
        value = torch.cat([f.flatten(2).transpose(1, 2) for f in features], 1)
        shapes = torch.as_tensor(shapes, dtype=torch.long, device=images.device)
        starts = torch.cat((shapes.new_zeros((1,)), shapes.prod(1).cumsum(0)[:-1]))
        sizes = [starts[1] - starts[0], value.shape[1] - starts[1]]
        chunks = value.split([size.item() for size in sizes], dim=1)
        locations = torch.tanh(chunks[1][:, :3, :2]).unsqueeze(2)
        return levels_attention(value, shapes, locations), starts


def make_model():
    torch.manual_seed(0)
    return Levels()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def probe_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 64, 64),)]
