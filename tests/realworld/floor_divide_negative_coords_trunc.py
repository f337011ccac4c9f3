"""`torch.floor_divide` / `//` now floors (-5 // 3 == -2) but the ONNX lowering of floor division still
truncates toward zero, so the exported model disagrees with eager PyTorch on negative values. Here
point coordinates around an origin are mapped to grid cells with `coords // voxel_size`.

Source: https://github.com/pytorch/pytorch/issues/78442
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"points": {0: "num_points"}}
BLIND = "operators-7"


class GridAssign(nn.Module):
    def __init__(self, voxel_size=(0.5, 0.5, 0.25), num_features=4):
        super().__init__()
        self.register_buffer("voxel_size", torch.tensor(voxel_size))
        self.proj = nn.Linear(num_features + 3, 16)

    def forward(self, points):
        coords = points[:, :3]
        cell = coords // self.voxel_size
        center = (cell + 0.5) * self.voxel_size
        feats = torch.cat([points, coords - center], dim=1)
        return cell, self.proj(feats)


def make_model():
    return GridAssign()


def example_inputs():
    return (torch.randn(64, 4) * 3,)


def other_inputs():
    return [(torch.randn(100, 4) * 3,), (torch.randn(17, 4) * 3,)]


def probe_inputs():
    return other_inputs()
