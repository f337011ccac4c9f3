"""PointPillars middle encoder (mmdet3d `PointPillarsScatter.forward_batch`): the detector takes the
number of point clouds from the voxel coordinates, `batch_size = coors[-1, 0].item() + 1`, then loops over
samples, masks that sample's pillars and scatters them into a BEV canvas; mmdeploy had to replace it with a
single-sample rewrite to export (the loop and the `.item()` batch size do not survive tracing).

Source: https://github.com/open-mmlab/mmdeploy/pull/103
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {"voxel_features": {0: "voxels"}, "coors": {0: "voxels"}}
BLIND = "domains-3"


class PointPillarsScatter(nn.Module):
    def __init__(self, in_channels, output_shape):
        super().__init__()
        self.output_shape = output_shape
        self.ny = output_shape[0]
        self.nx = output_shape[1]
        self.in_channels = in_channels

    def forward(self, voxel_features, coors, batch_size=None):
        return self.forward_batch(voxel_features, coors, batch_size)

    def forward_batch(self, voxel_features, coors, batch_size):
        batch_canvas = []
        for batch_itt in range(batch_size):
            canvas = torch.zeros(
                self.in_channels,
                self.nx * self.ny,
                dtype=voxel_features.dtype,
                device=voxel_features.device)
            batch_mask = coors[:, 0] == batch_itt
            this_coors = coors[batch_mask, :]
            indices = this_coors[:, 2] * self.nx + this_coors[:, 3]
            indices = indices.type(torch.long)
            voxels = voxel_features[batch_mask, :]
            voxels = voxels.t()
            canvas[:, indices] = voxels
            batch_canvas.append(canvas)
        batch_canvas = torch.stack(batch_canvas, 0)
        batch_canvas = batch_canvas.view(batch_size, self.in_channels, self.ny, self.nx)
        return batch_canvas


class VoxelNetBEV(nn.Module):
    def __init__(self, in_channels=16, output_shape=(12, 16)):
        super().__init__()
        self.middle_encoder = PointPillarsScatter(in_channels, output_shape)
        self.backbone = nn.Sequential(nn.Conv2d(in_channels, 16, 3, padding=1), nn.ReLU())

    def forward(self, voxel_features, coors):
        batch_size = coors[-1, 0].item() + 1
        x = self.middle_encoder(voxel_features, coors, batch_size)
        x = self.backbone(x)
        return x


def _pillars(per_sample, ny=12, nx=16, c=16):
    coors = []
    for b, n in enumerate(per_sample):
        cells = torch.randperm(ny * nx)[:n]
        coors.append(torch.stack([torch.full((n,), b), torch.zeros(n, dtype=torch.long),
                                  cells // nx, cells % nx], 1))
    coors = torch.cat(coors).to(torch.int32)
    return (torch.randn(coors.shape[0], c), coors)


def make_model():
    return VoxelNetBEV()


def example_inputs():
    return _pillars([40, 55])


def other_inputs():
    return [_pillars([30, 60, 25]), _pillars([70])]


def probe_inputs():
    return other_inputs()
