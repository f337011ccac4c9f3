"""Mask2Former's and RF-DETR's multi-scale bookkeeping through `torch._shape_as_tensor`: each
level's `(h, w)` is `torch._shape_as_tensor(feat)[2:]` moved to the features' device, the levels
joined by `torch.cat(...).view(-1, 2)` or `torch.stack(...)` and cast, mmcv's check
`assert (shapes[:, 0] * shapes[:, 1]).sum() == num_value`, then the attention reading the sizes
back (`split` by the areas, `.view` by `(H, W)`). torch.export cannot run `_shape_as_tensor` on a
traced tensor ("data is not allocated yet"); with size_tensors_kept it exports and matches PyTorch
on other image sizes, and the source is not edited."""
import torch
import torch.nn.functional as F
from torch import nn


def levels_attention(value, shapes, locations):
    batch, num_value, channels = value.shape
    assert (shapes[:, 0] * shapes[:, 1]).sum() == num_value
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
        value = torch.cat([f.flatten(2).transpose(1, 2) for f in features], 1)
        joined = torch.cat([torch._shape_as_tensor(f)[2:].to(f.device) for f in features]).view(-1, 2)
        stacked = torch.stack([torch._shape_as_tensor(f)[2:4] for f in features]).to(device=images.device, dtype=torch.long)
        locations = torch.tanh(value[:, :3, :2]).unsqueeze(2)
        return levels_attention(value, joined, locations), levels_attention(value, stacked, -locations)


def make_model():
    torch.manual_seed(0)
    return Levels()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def probe_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 64, 64),)]
