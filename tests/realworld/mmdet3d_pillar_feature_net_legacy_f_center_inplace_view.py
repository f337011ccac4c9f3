"""MMDetection3D PointPillars `PillarFeatureNet.forward` (legacy=True, the default): `f_center = features[:, :, :3]`
is a view, and the in-place column updates `f_center[:, :, 0] = f_center[:, :, 0] - (...)` also rewrite the raw
point features already put in `features_ls[0]`; mmdeploy's pillar-encoder rewriter had to be fixed to rebuild that
side effect explicitly (`features_ls[0] = torch.cat((f_center, features[..., 3:]), dim=-1)`) for the exported model.

Source: https://github.com/open-mmlab/mmdeploy/pull/331
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"features": {0: "num_voxels"}, "num_points": {0: "num_voxels"},
           "coors": {0: "num_voxels"}}
BLIND = "domains-45"


def get_paddings_indicator(actual_num, max_num, axis=0):
    """Create boolean mask by actually number of a padded tensor."""
    actual_num = torch.unsqueeze(actual_num, axis + 1)
    # tiled_actual_num: [N, M, 1]
    max_num_shape = [1] * len(actual_num.shape)
    max_num_shape[axis + 1] = -1
    max_num = torch.arange(
        max_num, dtype=torch.int, device=actual_num.device).view(max_num_shape)
    paddings_indicator = actual_num.int() > max_num
    # paddings_indicator shape: [batch_size, max_num]
    return paddings_indicator


class PFNLayer(nn.Module):

    def __init__(self, in_channels, out_channels, last_layer=False, mode='max'):
        super().__init__()
        self.last_vfe = last_layer
        self.norm = nn.BatchNorm1d(out_channels, eps=1e-3, momentum=0.01)
        self.linear = nn.Linear(in_channels, out_channels, bias=False)
        self.mode = mode

    def forward(self, inputs, num_voxels=None, aligned_distance=None):
        x = self.linear(inputs)
        x = self.norm(x.permute(0, 2, 1).contiguous()).permute(0, 2,
                                                               1).contiguous()
        x = F.relu(x)
        x_max = torch.max(x, dim=1, keepdim=True)[0]
        if self.last_vfe:
            return x_max
        else:
            x_repeat = x_max.repeat(1, inputs.shape[1], 1)
            x_concatenated = torch.cat([x, x_repeat], dim=2)
            return x_concatenated


class PillarFeatureNet(nn.Module):

    def __init__(self, in_channels=4, feat_channels=(64, ), with_distance=False,
                 with_cluster_center=True, with_voxel_center=True,
                 voxel_size=(0.16, 0.16, 4), point_cloud_range=(0, -39.68, -3, 69.12, 39.68, 1),
                 legacy=True):
        super().__init__()
        self.legacy = legacy
        if with_cluster_center:
            in_channels += 3
        if with_voxel_center:
            in_channels += 3
        if with_distance:
            in_channels += 1
        self._with_distance = with_distance
        self._with_cluster_center = with_cluster_center
        self._with_voxel_center = with_voxel_center
        feat_channels = [in_channels] + list(feat_channels)
        pfn_layers = []
        for i in range(len(feat_channels) - 1):
            pfn_layers.append(PFNLayer(feat_channels[i], feat_channels[i + 1],
                                       last_layer=(i >= len(feat_channels) - 2)))
        self.pfn_layers = nn.ModuleList(pfn_layers)
        self.vx = voxel_size[0]
        self.vy = voxel_size[1]
        self.vz = voxel_size[2]
        self.x_offset = self.vx / 2 + point_cloud_range[0]
        self.y_offset = self.vy / 2 + point_cloud_range[1]
        self.z_offset = self.vz / 2 + point_cloud_range[2]

    def forward(self, features, num_points, coors):
        features_ls = [features]
        # Find distance of x, y, and z from cluster center
        if self._with_cluster_center:
            points_mean = features[:, :, :3].sum(
                dim=1, keepdim=True) / num_points.type_as(features).view(
                    -1, 1, 1)
            f_cluster = features[:, :, :3] - points_mean
            features_ls.append(f_cluster)

        # Find distance of x, y, and z from pillar center
        dtype = features.dtype
        if self._with_voxel_center:
            if not self.legacy:
                f_center = torch.zeros_like(features[:, :, :3])
                f_center[:, :, 0] = features[:, :, 0] - (
                    coors[:, 3].to(dtype).unsqueeze(1) * self.vx +
                    self.x_offset)
                f_center[:, :, 1] = features[:, :, 1] - (
                    coors[:, 2].to(dtype).unsqueeze(1) * self.vy +
                    self.y_offset)
                f_center[:, :, 2] = features[:, :, 2] - (
                    coors[:, 1].to(dtype).unsqueeze(1) * self.vz +
                    self.z_offset)
            else:
                f_center = features[:, :, :3]
                f_center[:, :, 0] = f_center[:, :, 0] - (
                    coors[:, 3].type_as(features).unsqueeze(1) * self.vx +
                    self.x_offset)
                f_center[:, :, 1] = f_center[:, :, 1] - (
                    coors[:, 2].type_as(features).unsqueeze(1) * self.vy +
                    self.y_offset)
                f_center[:, :, 2] = f_center[:, :, 2] - (
                    coors[:, 1].type_as(features).unsqueeze(1) * self.vz +
                    self.z_offset)
            features_ls.append(f_center)

        if self._with_distance:
            points_dist = torch.norm(features[:, :, :3], 2, 2, keepdim=True)
            features_ls.append(points_dist)

        # Combine together feature decorations
        features = torch.cat(features_ls, dim=-1)
        # The feature decorations were calculated without regard to whether
        # pillar was empty. Need to ensure that
        # empty pillars remain set to zeros.
        voxel_count = features.shape[1]
        mask = get_paddings_indicator(num_points, voxel_count, axis=0)
        mask = torch.unsqueeze(mask, -1).type_as(features)
        features *= mask
        for pfn in self.pfn_layers:
            features = pfn(features, num_points)

        return features.squeeze(1)


def make_model():
    return PillarFeatureNet().eval()


def _voxels(n, m=32):
    num_points = torch.randint(1, m + 1, (n,), dtype=torch.int32)
    coors = torch.stack([torch.zeros(n, dtype=torch.int32),
                         torch.zeros(n, dtype=torch.int32),
                         torch.randint(0, 496, (n,), dtype=torch.int32),
                         torch.randint(0, 432, (n,), dtype=torch.int32)], dim=1)
    xyz = torch.stack([coors[:, 3].float() * 0.16, coors[:, 2].float() * 0.16 - 39.68,
                       torch.zeros(n)], dim=1).unsqueeze(1) + torch.rand(n, m, 3) * 0.16
    features = torch.cat([xyz, torch.rand(n, m, 1)], dim=-1)
    valid = torch.arange(m).unsqueeze(0) < num_points.unsqueeze(1)
    return features * valid.unsqueeze(-1), num_points, coors


def example_inputs():
    return _voxels(20)


def other_inputs():
    return [_voxels(57), _voxels(9)]


def probe_inputs():
    return other_inputs()
