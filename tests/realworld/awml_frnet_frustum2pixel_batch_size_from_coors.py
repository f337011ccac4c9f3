"""FRNet (LiDAR frustum-range segmentation, tier4/AWML): `FRNetBackbone.forward` takes the batch size from the
point coordinates' values (`batch_size = torch.add(pts_coors[-1, 0], 1)`) and `frustum2pixel` builds the range image
with `torch.zeros((batch_size, ny, nx, C))`, while `point2frustum` sizes its frustum buffer with `inverse_map.max() + 1`;
the commit that enabled ONNX/TensorRT deployment had to add a `deploy` flag forcing `batch_size = 1` in frustum2pixel.

Source: https://github.com/tier4/AWML/commit/20b5d39838039157438e0be7de9cedd547d8e29b
"""
from typing import Tuple

import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "point_feats": {0: "num_points"},
    "voxel_feats": {0: "num_voxels"},
    "voxel_coors": {0: "num_voxels"},
    "pts_coors": {0: "num_points"},
    "inverse_map": {0: "num_points"},
}
BLIND = "domains-46"


class FRNetBackbone(nn.Module):
    # trimmed to the stem: frustum-to-pixel, pixel-to-point, point-to-frustum fusion
    def __init__(self, in_channels=16, point_in_channels=16, output_shape=(16, 32), stem_channels=32):
        super().__init__()
        self.output_shape = output_shape
        self.ny = output_shape[0]
        self.nx = output_shape[1]
        self.stem = nn.Sequential(
            nn.Conv2d(in_channels, stem_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(stem_channels), nn.LeakyReLU())
        self.point_stem = nn.Sequential(
            nn.Linear(stem_channels + point_in_channels, stem_channels, bias=False),
            nn.BatchNorm1d(stem_channels), nn.ReLU(inplace=True))
        self.fusion_stem = nn.Sequential(
            nn.Conv2d(stem_channels * 2, stem_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(stem_channels), nn.LeakyReLU())

    def forward(self, point_feats, voxel_feats, voxel_coors, pts_coors, inverse_map):
        batch_size = torch.add(pts_coors[-1, 0], 1)

        x = self.frustum2pixel(voxel_feats, voxel_coors, batch_size, stride=1)
        x = self.stem(x)
        map_point_feats = self.pixel2point(x, pts_coors, stride=1)
        fusion_point_feats = torch.cat((map_point_feats, point_feats), dim=1)
        point_feats = self.point_stem(fusion_point_feats)
        stride_voxel_coors, frustum_feats = self.point2frustum(point_feats, voxel_coors, inverse_map, stride=1)
        pixel_feats = self.frustum2pixel(frustum_feats, stride_voxel_coors, batch_size, stride=1)
        fusion_pixel_feats = torch.cat((pixel_feats, x), dim=1)
        x = self.fusion_stem(fusion_pixel_feats)
        return x, point_feats

    def frustum2pixel(self, frustum_features: Tensor, coors: Tensor, batch_size: int, stride: int = 1) -> Tensor:
        nx = self.nx // stride
        ny = self.ny // stride
        pixel_features = torch.zeros(
            (batch_size, ny, nx, frustum_features.shape[-1]),
            dtype=frustum_features.dtype,
            device=frustum_features.device,
        )
        pixel_features[coors[:, 0], coors[:, 1], coors[:, 2]] = frustum_features
        pixel_features = pixel_features.permute(0, 3, 1, 2).contiguous()
        return pixel_features

    def pixel2point(self, pixel_features: Tensor, coors: Tensor, stride: int = 1) -> Tensor:
        pixel_features = pixel_features.permute(0, 2, 3, 1).contiguous()
        point_feats = pixel_features[coors[:, 0], coors[:, 1] // stride, coors[:, 2] // stride]
        return point_feats

    def point2frustum(
        self, point_features: Tensor, voxel_coors: Tensor, inverse_map: Tensor, stride: int = 1
    ) -> Tuple[Tensor, Tensor]:
        voxel_coors_strided = voxel_coors // stride

        frustum_features = torch.full(
            (inverse_map.max() + 1, point_features.size(1)),
            torch.finfo(point_features.dtype).min,
            device=point_features.device,
            dtype=point_features.dtype,
        )
        frustum_features.scatter_reduce_(
            dim=0,
            index=inverse_map.unsqueeze(-1).expand_as(point_features),
            src=point_features,
            reduce="amax",
            include_self=True,
        )
        return voxel_coors_strided, frustum_features


def make_model():
    return FRNetBackbone().eval()


def _inputs(batch, points_per_scan, ny=16, nx=32):
    # what FrustumRangePreprocessor hands the model: per-point (batch, row, col) frustum coords, the unique
    # frustums (voxel_coors) with the point->frustum inverse map, and per-point / per-frustum features
    coors = []
    for i in range(batch):
        rc = torch.stack([torch.randint(0, ny, (points_per_scan,)), torch.randint(0, nx, (points_per_scan,))], dim=1)
        coors.append(torch.nn.functional.pad(rc, (1, 0), mode="constant", value=i))
    pts_coors = torch.cat(coors, dim=0)
    voxel_coors, inverse_map = torch.unique(pts_coors, return_inverse=True, dim=0)
    point_feats = torch.randn(pts_coors.shape[0], 16)
    voxel_feats = torch.randn(voxel_coors.shape[0], 16)
    return (point_feats, voxel_feats, voxel_coors, pts_coors, inverse_map)


def example_inputs():
    return _inputs(2, 300)


def other_inputs():
    return [_inputs(1, 250), _inputs(3, 180)]


def probe_inputs():
    return other_inputs()
