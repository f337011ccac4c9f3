"""PTv2 weld-seam segmentation (GCN_res) TransitionDown: the deployment rewrite of torch_cluster `grid` voxel
pooling in standard PyTorch ops computes voxel coordinates with `torch.trunc(shifted / voxel_size).to(torch.int64)`
(C++ static_cast semantics), builds mixed-radix voxel keys, `torch.unique(..., return_inverse=True)`, and pools with
`scatter_reduce(..., reduce="amin"/"amax", include_self=False)` / `scatter_add`, then crops every batch item to the
smallest voxel count. The export report (legacy exporter, opset 18) stops at its first blocking operator:
"Exporting the operator 'aten::trunc' to ONNX opset version 18 is not supported" (onnx_voxel_pool.py:71-72).
The metadata outputs (retained voxel coordinates, counts) are dropped; the model is one TransitionDown.

Source: https://github.com/realme-max/PTV2-WeldSeg-Deployment/blob/2f10abe9264d1640d6c172d23a85163dcca074ac/docs/gcn_res_onnx_export_validation.md
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"points": {1: "num_points"}, "features": {1: "num_points"}}
BLIND = "operators-39"


def standard_voxel_pool(points, points_features, voxel_size):
    batch_size, points_per_batch, _ = points.shape
    voxel_size = voxel_size.to(device=points.device, dtype=points.dtype).reshape(1, 1, 3)

    start = torch.amin(points, dim=1)
    end = torch.amax(points, dim=1)
    shifted = points - start.unsqueeze(1)

    # C++/CUDA static_cast<int64_t> truncates toward zero.
    voxel_coordinates = torch.trunc(shifted / voxel_size).to(torch.int64)
    extents = torch.trunc((end - start) / voxel_size.reshape(1, 3)).to(torch.int64) + 1

    # x is the fastest-changing dimension: key = x + extent_x*y + extent_x*extent_y*z.
    strides = torch.stack(
        (torch.ones_like(extents[:, 0]), extents[:, 0], extents[:, 0] * extents[:, 1]), dim=1
    )
    local_keys = torch.sum(voxel_coordinates * strides.unsqueeze(1), dim=2)
    capacities = torch.prod(extents, dim=1)
    offsets = torch.cumsum(capacities, dim=0) - capacities
    global_keys = local_keys + offsets.unsqueeze(1)

    unique_global_keys, inverse_global = torch.unique(global_keys.reshape(-1), sorted=True, return_inverse=True)
    total_voxels = unique_global_keys.shape[0]

    point_batch_ids = (
        torch.arange(batch_size, device=points.device, dtype=torch.int64)
        .reshape(batch_size, 1).expand(batch_size, points_per_batch).reshape(-1)
    )
    unique_batch_ids = torch.zeros(total_voxels, device=points.device, dtype=torch.int64).scatter_reduce(
        0, inverse_global, point_batch_ids, reduce="amin", include_self=False
    )
    count_int = torch.zeros(total_voxels, device=points.device, dtype=torch.int64).scatter_add(
        0, inverse_global, torch.ones_like(inverse_global)
    )
    point_index = inverse_global.unsqueeze(1).expand(-1, 3)
    summed_points = torch.zeros((total_voxels, 3), device=points.device, dtype=points.dtype).scatter_add(
        0, point_index, points.reshape(-1, 3)
    )
    mean_points = summed_points / count_int.to(points.dtype).unsqueeze(1)

    feature_dim = points_features.shape[2]
    feature_index = inverse_global.unsqueeze(1).expand(-1, feature_dim)
    pooled_features_all = torch.zeros(
        (total_voxels, feature_dim), device=points_features.device, dtype=points_features.dtype
    ).scatter_reduce(0, feature_index, points_features.reshape(-1, feature_dim), reduce="amax", include_self=False)

    voxel_count_per_batch = torch.zeros(batch_size, device=points.device, dtype=torch.int64).scatter_add(
        0, unique_batch_ids, torch.ones_like(unique_batch_ids)
    )
    batch_prefix = torch.cumsum(voxel_count_per_batch, dim=0) - voxel_count_per_batch
    local_unique_indices = torch.arange(total_voxels, device=points.device, dtype=torch.int64) - batch_prefix.index_select(0, unique_batch_ids)
    min_voxel_count = torch.amin(voxel_count_per_batch)
    retained_mask = local_unique_indices < min_voxel_count
    pooled_points = mean_points[retained_mask].reshape(batch_size, min_voxel_count, 3)
    pooled_features = pooled_features_all[retained_mask].reshape(batch_size, min_voxel_count, feature_dim)
    return pooled_points, pooled_features


class TransitionDown(nn.Module):
    def __init__(self, in_planes, out_planes, grid_size):
        super().__init__()
        self.linear = nn.Sequential(nn.Linear(in_planes, out_planes), nn.ReLU(inplace=True))
        self.register_buffer("voxel_size", torch.tensor([grid_size] * 3))

    def forward(self, points, features):
        features = self.linear(features)
        return standard_voxel_pool(points, features, self.voxel_size)


def make_model():
    return TransitionDown(48, 96, 0.06).eval()


def example_inputs():
    return (torch.rand(1, 512, 3), torch.randn(1, 512, 48))


def other_inputs():
    return [(torch.rand(1, 700, 3), torch.randn(1, 700, 48)), (torch.rand(1, 300, 3) * 0.5, torch.randn(1, 300, 48))]


def probe_inputs():
    return other_inputs()
