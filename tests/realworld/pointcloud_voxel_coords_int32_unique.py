"""Point-cloud network with dynamic voxelization inside the graph: integer voxel coordinates are
computed with `.int()`, reordered to zyx (a Gather) and deduplicated with
`torch.unique(coors, return_inverse=True, dim=0)`. The model exports, but onnxruntime refuses it:
"NOT_IMPLEMENTED : Could not find an implementation for Unique(11) node" -- the reporter found ORT's
Unique only has INT64, INT8, FLOAT and STRING kernels, and the coordinates are int32.

Source: https://github.com/onnxsim/onnxsim/issues/294
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"points": {0: "num_points"}}
BLIND = "operators-14"


class DynamicVoxelVFE(nn.Module):
    def __init__(self, voxel_size=(0.5, 0.5, 4.0), point_cloud_range=(-8.0, -8.0, -3.0, 8.0, 8.0, 1.0)):
        super().__init__()
        self.register_buffer("voxel_size", torch.tensor(voxel_size))
        self.register_buffer("pc_min", torch.tensor(point_cloud_range[:3]))
        self.pfn = nn.Sequential(nn.Linear(4 + 3, 32), nn.ReLU())

    def forward(self, points):
        coors = torch.floor((points[:, :3] - self.pc_min) / self.voxel_size).int()
        coors = coors[:, [2, 1, 0]]
        unq_coors, unq_inv = torch.unique(coors, return_inverse=True, dim=0)
        voxel_center = coors.flip(1).float() * self.voxel_size + self.voxel_size / 2 + self.pc_min
        f_center = points[:, :3] - voxel_center
        point_feats = self.pfn(torch.cat([points, f_center], dim=1))
        return point_feats, unq_inv


def make_model():
    return DynamicVoxelVFE().eval()


def _points(n):
    xyz = torch.rand(n, 3) * torch.tensor([16.0, 16.0, 4.0]) + torch.tensor([-8.0, -8.0, -3.0])
    return torch.cat([xyz, torch.rand(n, 1)], dim=1)


def example_inputs():
    return (_points(200),)


def other_inputs():
    return [(_points(317),), (_points(64),)]


def probe_inputs():
    return other_inputs()
