"""anomalib CFM (Crossmodal Feature Mapping, RGB + organized point cloud): `get_features_maps` drops the (0,0,0)
padding of the organized point cloud with `torch.nonzero((unorganized_pc[0] != 0).any(dim=1))`, runs the
Point-MAE grouping (farthest point sampling loop with boolean-mask updates, KNN `topk` over the remaining points)
on the data-dependent number of valid points, interpolates the group features back onto those points and scatters
them into the H*W grid with `xyz_patch_full[..., nonzero_indices] = interpolated_pc`. anomalib's integration test
skips the ONNX/OpenVINO export of this model: "CFM uses dynamic point-cloud ops that are not ONNX/OpenVINO
exportable". DINO and Point-MAE are replaced by small stand-ins; FPS starts from point 0 instead of
`torch.randint` so that eager runs are repeatable.

Source: https://github.com/open-edge-platform/anomalib/blob/faedd0734af81233192e6108c8962ab61e6d2de8/tests/integration/model/test_models.py
(code: https://github.com/open-edge-platform/anomalib/blob/faedd0734af81233192e6108c8962ab61e6d2de8/src/anomalib/models/image/cfm/components.py)
"""
import torch
from torch import nn
from torch.nn import functional

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {}   # batch 1 as the model recommends; the number of valid (non-padding) points varies with the data
BLIND = "domains-84"


def square_distance(src, dst):
    b, n, _ = src.shape
    _, m, _ = dst.shape
    dist = -2 * torch.matmul(src, dst.permute(0, 2, 1))
    dist += torch.sum(src**2, -1).view(b, n, 1)
    dist += torch.sum(dst**2, -1).view(b, 1, m)
    return dist


def index_points(points, idx):
    device = points.device
    b = points.shape[0]
    view_shape = list(idx.shape)
    view_shape[1:] = [1] * (len(view_shape) - 1)
    repeat_shape = list(idx.shape)
    repeat_shape[0] = 1
    batch_indices = torch.arange(b, dtype=torch.long, device=device).view(view_shape).repeat(repeat_shape)
    return points[batch_indices, idx, :]


def farthest_point_sample(xyz, npoint):
    device = xyz.device
    b, n, _ = xyz.shape
    centroids = torch.zeros(b, npoint, dtype=torch.long).to(device)
    distance = torch.ones(b, n).to(device) * 1e10
    farthest = torch.zeros(b, dtype=torch.long).to(device)   # upstream: torch.randint(0, n, (b,))
    batch_indices = torch.arange(b, dtype=torch.long).to(device)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch_indices, farthest, :].view(b, 1, 3)
        dist = torch.sum((xyz - centroid) ** 2, -1)
        mask = dist < distance
        distance[mask] = dist[mask]
        farthest = torch.max(distance, -1)[1]
    return centroids


def interpolating_points(xyz1, xyz2, points2):
    xyz1 = xyz1.permute(0, 2, 1)
    xyz2 = xyz2.permute(0, 2, 1)
    points2 = points2.permute(0, 2, 1)
    b, n, _ = xyz1.shape
    _, s, _ = xyz2.shape
    if s == 1:
        interpolated_points = points2.repeat(1, n, 1).permute(0, 2, 1)
    else:
        dists = square_distance(xyz1, xyz2)
        dists, idx = dists.sort(dim=-1)
        dists, idx = dists[:, :, :3], idx[:, :, :3]  # Take 3 nearest neighbors
        dist_recip = 1.0 / (dists + 1e-8)
        norm = torch.sum(dist_recip, dim=2, keepdim=True)
        weight = dist_recip / norm
        interpolated_points = torch.sum(index_points(points2, idx) * weight.view(b, n, 3, 1), dim=2)
        interpolated_points = interpolated_points.permute(0, 2, 1)
    return interpolated_points


class Group(nn.Module):
    def __init__(self, num_group, group_size):
        super().__init__()
        self.num_group = num_group
        self.group_size = group_size

    def forward(self, xyz):
        batch_size, num_points, _ = xyz.shape
        center_idx = farthest_point_sample(xyz.contiguous(), self.num_group)
        center = index_points(xyz, center_idx)
        distances = torch.norm(xyz.unsqueeze(2) - center.unsqueeze(1), dim=-1)
        _, idx = torch.topk(distances, self.group_size, dim=1, largest=False, sorted=True)
        idx = idx.permute(0, 2, 1)
        idx_base = torch.arange(0, batch_size, device=xyz.device).view(-1, 1, 1) * num_points
        idx = (idx + idx_base).reshape(-1)
        neighborhood = xyz.reshape(batch_size * num_points, -1)[idx, :]
        neighborhood = neighborhood.reshape(batch_size, self.num_group, self.group_size, 3).contiguous()
        return neighborhood - center.unsqueeze(2), center


class PointEncoderStandIn(nn.Module):
    """Point-MAE stand-in: group the points, embed each group (mini-PointNet), (B, C, G) features + centers."""

    def __init__(self, num_group=16, group_size=8, dim=24):
        super().__init__()
        self.group_divider = Group(num_group, group_size)
        self.encoder = nn.Sequential(nn.Linear(3, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, pts):
        neighborhood, center = self.group_divider(pts)
        feats = self.encoder(neighborhood).max(dim=2)[0]      # (B, G, C)
        return feats.transpose(-1, -2).contiguous(), center


class MultimodalFeatures(nn.Module):
    def __init__(self, rgb_dim=32, xyz_dim=24):
        super().__init__()
        self.rgb_backbone = nn.Conv2d(3, rgb_dim, kernel_size=8, stride=8)   # DINO ViT-B/8 patch grid stand-in
        self.xyz_backbone = PointEncoderStandIn(dim=xyz_dim)
        self.average = nn.AvgPool2d(kernel_size=3, stride=1, padding=1)

    def get_features_maps(self, rgb, pc):
        h, w = rgb.shape[-2:]
        b = pc.shape[0]
        unorganized_pc = pc.view(b, pc.shape[1], -1).permute(0, 2, 1)

        nonzero_indices = torch.nonzero((unorganized_pc[0] != 0).any(dim=1)).squeeze(dim=1)
        unorganized_pc_no_zeros = unorganized_pc[:, nonzero_indices, :]

        with torch.no_grad():
            rgb_raw = self.rgb_backbone(rgb)
            xyz_raw, center = self.xyz_backbone(unorganized_pc_no_zeros)

        interpolated_pc = interpolating_points(
            unorganized_pc_no_zeros.transpose(1, 2),
            center.permute(0, 2, 1),
            xyz_raw,
        )

        xyz_patch_full = torch.zeros(
            (b, interpolated_pc.shape[1], h * w),
            dtype=interpolated_pc.dtype,
            device=rgb.device,
        )
        xyz_patch_full[..., nonzero_indices] = interpolated_pc

        xyz_patch_full_2d = xyz_patch_full.view(b, interpolated_pc.shape[1], h, w)
        xyz_feat = functional.adaptive_avg_pool2d(self.average(xyz_patch_full_2d), (h, w))

        rgb_feat = functional.interpolate(rgb_raw, size=(h, w), mode="bilinear", align_corners=False)
        rgb_feat = self.average(rgb_feat)
        return rgb_feat, xyz_feat


class FeatureProjectionMLP(nn.Module):
    def __init__(self, in_features, out_features, act_layer=nn.GELU):
        super().__init__()
        hidden_dim = (in_features + out_features) // 2
        self.act_fcn = act_layer()
        self.input = nn.Conv2d(in_features, hidden_dim, kernel_size=1)
        self.projection = nn.Conv2d(hidden_dim, hidden_dim, kernel_size=1)
        self.output = nn.Conv2d(hidden_dim, out_features, kernel_size=1)

    def forward(self, x):
        x = self.act_fcn(self.input(x))
        x = self.act_fcn(self.projection(x))
        return self.output(x)


class CFMModel(nn.Module):
    def __init__(self, rgb_dim=32, xyz_dim=24):
        super().__init__()
        self.feature_extractors = MultimodalFeatures(rgb_dim, xyz_dim).eval()
        self.xyz_to_rgb_mapper = FeatureProjectionMLP(in_features=xyz_dim, out_features=rgb_dim)
        self.rgb_to_xyz_mapper = FeatureProjectionMLP(in_features=rgb_dim, out_features=xyz_dim)

    @staticmethod
    def compute_distance(real, predicted):
        real_norm = functional.normalize(real, dim=1)
        pred_norm = functional.normalize(predicted, dim=1)
        return (pred_norm - real_norm).pow(2).sum(dim=1).sqrt()

    def forward(self, rgb, xyz):
        rgb_feat, xyz_feat = self.feature_extractors.get_features_maps(rgb, xyz)
        pred_rgb = self.xyz_to_rgb_mapper(xyz_feat)
        pred_xyz = self.rgb_to_xyz_mapper(rgb_feat)
        anomaly_map = (self.compute_distance(rgb_feat, pred_rgb) * self.compute_distance(xyz_feat, pred_xyz)).unsqueeze(1)
        b, _, h, w = anomaly_map.shape
        k = max(1, int(h * w * 0.01))
        pred_score = torch.topk(anomaly_map.view(b, -1), k=k, dim=1)[0].mean(dim=1)
        return pred_score, anomaly_map


def _organized_pc(valid_h, valid_w, size=32):
    """Organized point cloud (1, 3, H, W) whose border is (0, 0, 0) padding around a valid_h x valid_w block."""
    pc = torch.zeros(1, 3, size, size)
    top, left = (size - valid_h) // 2, (size - valid_w) // 2
    # coordinates on a 1/1024 grid: the squared distances of `square_distance` are then exact in float32, so the
    # `1.0 / (dists + 1e-8)` of a point that is itself an FPS center does not depend on rounding order
    pc[:, :, top:top + valid_h, left:left + valid_w] = torch.randint(1, 1024, (1, 3, valid_h, valid_w)) / 1024.0
    return pc


def make_model():
    return CFMModel().eval()


def example_inputs():
    return (torch.rand(1, 3, 32, 32), _organized_pc(24, 20))


def other_inputs():
    return [(torch.rand(1, 3, 32, 32), _organized_pc(16, 30)), (torch.rand(1, 3, 32, 32), _organized_pc(28, 28))]


def probe_inputs():
    return other_inputs()
