"""NVIDIA TAO PointPillars export script: `ExportableScatter` (the PointPillarScatter replacement written
for ONNX) still reads the batch size from the voxel coordinates with
`coords[..., 0].max().int().item() + 1` and loops over it, masking each sample's pillars; the script
exports with a dynamic "batch" axis, but the Python loop count is fixed from the dummy coords (dynamo
cannot loop over the data-dependent `.item()` value; TorchScript bakes it as a constant).

Source: https://github.com/NVIDIA/tao_pytorch_backend/blob/main/nvidia_tao_pytorch/pointcloud/pointpillars/scripts/export.py
"""
import torch
from torch import nn

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {"pillar_features": {0: "batch"}, "coords": {0: "batch"}}
BLIND = "domains-72"


class PointPillarScatter(nn.Module):
    def __init__(self, num_bev_features=64, grid_size=(24, 16, 1)):
        super().__init__()
        self.num_bev_features = num_bev_features
        self.nx, self.ny, self.nz = grid_size


class ExportableScatter(nn.Module):
    """Scatter module replacement that can be exported."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, pillar_features, coords):
        batch_spatial_features = []
        batch_size = coords[..., 0].max().int().item() + 1
        for batch_idx in range(batch_size):
            spatial_feature = torch.zeros(
                self.model.num_bev_features,
                self.model.nz * self.model.nx * self.model.ny,
                dtype=pillar_features.dtype,
                device=pillar_features.device
            )
            batch_mask = coords[batch_idx, :, 0] == batch_idx
            this_coords = coords[batch_idx, batch_mask, :]
            indices = this_coords[:, 1] + this_coords[:, 2] * self.model.nx + this_coords[:, 3]
            indices = indices.type(torch.long)
            pillars = pillar_features[batch_idx, batch_mask, :]
            pillars = pillars.t()
            spatial_feature[:, indices] = pillars
            batch_spatial_features.append(spatial_feature)
        batch_spatial_features = torch.stack(batch_spatial_features, 0)
        batch_spatial_features = batch_spatial_features.view(
            -1, self.model.num_bev_features * self.model.nz,
            self.model.ny, self.model.nx
        )
        return batch_spatial_features


def make_model():
    return ExportableScatter(PointPillarScatter()).eval()


def _inputs(batch, max_voxels=40, nx=24, ny=16):
    feats = torch.randn(batch, max_voxels, 64)
    coords = torch.zeros(batch, max_voxels, 4, dtype=torch.int32)
    for b in range(batch):
        cells = torch.randperm(nx * ny)[:max_voxels]
        coords[b, :, 0] = b
        coords[b, :, 2] = (cells // nx).int()
        coords[b, :, 3] = (cells % nx).int()
        coords[b, max_voxels - 5:, 0] = -1          # padded (empty) voxel slots
    return feats, coords


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()
