"""CenterPoint (OpenPCDet) dynamic pillar VFE exported as one ONNX graph: points outside the grid are dropped
with a boolean mask (`.all(dim=1)`), pillars are found with `torch.unique(..., return_inverse=True,
return_counts=True, dim=0)` and the per-pillar mean comes from torch_scatter's `scatter_mean`, whose
output size is `int(index.max()) + 1`; the write-up says the `.all` mask and `scatter_mean` do not go to
ONNX and had to be moved out of the graph / replaced by custom nodes.

Source: https://bcxiaobai.eu.org/post/14643.html
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"points": {0: "num_points"}}
BLIND = "domains-24"


# torch_scatter (pure-Python scatter_sum / scatter_mean)
def broadcast(src, other, dim):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand(other.size())
    return src


def scatter_sum(src, index, dim=-1, out=None, dim_size=None):
    index = broadcast(index, src, dim)
    if out is None:
        size = list(src.size())
        if dim_size is not None:
            size[dim] = dim_size
        elif index.numel() == 0:
            size[dim] = 0
        else:
            size[dim] = int(index.max()) + 1
        out = torch.zeros(size, dtype=src.dtype, device=src.device)
        return out.scatter_add_(dim, index, src)
    else:
        return out.scatter_add_(dim, index, src)


def scatter_mean(src, index, dim=-1, out=None, dim_size=None):
    out = scatter_sum(src, index, dim, out, dim_size)
    dim_size = out.size(dim)
    index_dim = dim
    if index_dim < 0:
        index_dim = index_dim + src.dim()
    if index.dim() <= index_dim:
        index_dim = index.dim() - 1
    ones = torch.ones(index.size(), dtype=src.dtype, device=src.device)
    count = scatter_sum(ones, index, index_dim, None, dim_size)
    count[count < 1] = 1
    count = broadcast(count, out, dim)
    if out.is_floating_point():
        out.true_divide_(count)
    else:
        out.div_(count, rounding_mode='floor')
    return out


class DynamicPillarVFE(nn.Module):
    def __init__(self, voxel_size=(0.8, 0.8, 8.0), grid_size=(16, 16, 1),
                 point_cloud_range=(-6.4, -6.4, -3.0, 6.4, 6.4, 5.0), num_filters=32):
        super().__init__()
        self.voxel_x = voxel_size[0]
        self.voxel_y = voxel_size[1]
        self.voxel_z = voxel_size[2]
        self.x_offset = self.voxel_x / 2 + point_cloud_range[0]
        self.y_offset = self.voxel_y / 2 + point_cloud_range[1]
        self.z_offset = self.voxel_z / 2 + point_cloud_range[2]
        self.scale_xy = grid_size[0] * grid_size[1]
        self.scale_y = grid_size[1]
        self.grid_size = torch.tensor(grid_size)
        self.voxel_size = torch.tensor(voxel_size)
        self.point_cloud_range = torch.tensor(point_cloud_range)
        self.linear = nn.Linear(10, num_filters, bias=False)
        self.norm = nn.BatchNorm1d(num_filters, eps=1e-3, momentum=0.01)

    def forward(self, points):
        # points: (batch_idx, x, y, z, intensity)
        points_coords = torch.floor((points[:, [1, 2]] - self.point_cloud_range[[0, 1]]) / self.voxel_size[[0, 1]]).int()
        mask = ((points_coords >= 0) & (points_coords < self.grid_size[[0, 1]])).all(dim=1)
        points = points[mask]
        points_coords = points_coords[mask]
        points_xyz = points[:, [1, 2, 3]].contiguous()

        merge_coords = points[:, 0].int() * self.scale_xy + \
                       points_coords[:, 0] * self.scale_y + \
                       points_coords[:, 1]

        unq_coords, unq_inv, unq_cnt = torch.unique(merge_coords, return_inverse=True, return_counts=True, dim=0)

        points_mean = scatter_mean(points_xyz, unq_inv, dim=0)
        f_cluster = points_xyz - points_mean[unq_inv, :]

        f_center = torch.zeros_like(points_xyz)
        f_center[:, 0] = points_xyz[:, 0] - (points_coords[:, 0].to(points_xyz.dtype) * self.voxel_x + self.x_offset)
        f_center[:, 1] = points_xyz[:, 1] - (points_coords[:, 1].to(points_xyz.dtype) * self.voxel_y + self.y_offset)
        f_center[:, 2] = points_xyz[:, 2] - self.z_offset

        features = torch.cat([points[:, 1:], f_cluster, f_center], dim=-1)
        x = torch.relu(self.norm(self.linear(features)))
        features = scatter_mean(x, unq_inv, dim=0)

        unq_coords = unq_coords.int()
        voxel_coords = torch.stack((unq_coords // self.scale_xy,
                                    (unq_coords % self.scale_xy) // self.scale_y,
                                    unq_coords % self.scale_y,
                                    torch.zeros(unq_coords.shape[0]).to(unq_coords.device).int()
                                    ), dim=1)
        voxel_coords = voxel_coords[:, [0, 3, 2, 1]]
        return features, voxel_coords


def make_model():
    return DynamicPillarVFE().eval()


def _points(n, batch_size=2):
    b = torch.randint(0, batch_size, (n, 1)).sort(dim=0).values.float()
    xy = torch.rand(n, 2) * 16.0 - 8.0          # some points fall outside the 12.8 m grid
    z = torch.rand(n, 1) * 4.0 - 2.0
    i = torch.rand(n, 1)
    return torch.cat([b, xy, z, i], dim=1)


def example_inputs():
    return (_points(300),)


def other_inputs():
    return [(_points(517),), (_points(64, batch_size=1),)]


def probe_inputs():
    return other_inputs()
