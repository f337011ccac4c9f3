"""BEVDet's Lift-Splat view transformer (`LSSViewTransformer.voxel_pooling_prepare_v2`): the frustum points are
filtered with a boolean mask (`coor[kept]`), sorted by BEV rank, the voxel interval starts are taken with
`torch.where(kept)[0]`, and the function returns `None`s early when `len(interval_starts) == 0`; `voxel_pooling_v2`
then falls back to a zero BEV map. Qualcomm's AI Hub BEVDet wrapper rewrites this function for export
("Optimization Change dynamic to static", "Changed range to arange to support export") into a fixed-size version.

Source: https://github.com/quic/ai-hub-models/blob/main/qai_hub_models/models/bevdet/model_patches.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-52"


def bev_pool_v2(depth, feat, ranks_depth, ranks_feat, ranks_bev, bev_feat_shape, interval_starts, interval_lengths):
    # stands in for BEVDet's CUDA kernel: out[ranks_bev] += depth[ranks_depth] * feat[ranks_feat], as (B, C, Z, Y, X)
    C = bev_feat_shape[-1]
    src = depth.reshape(-1)[ranks_depth.long()].unsqueeze(-1) * feat.reshape(-1, C)[ranks_feat.long()]
    out = feat.new_zeros(bev_feat_shape).view(-1, C)
    out = out.scatter_add(0, ranks_bev.long().unsqueeze(-1).expand(-1, C), src)
    return out.view(bev_feat_shape).permute(0, 4, 1, 2, 3).contiguous()


class LSSViewTransformer(nn.Module):
    def __init__(self, grid_config, collapse_z=True):
        super().__init__()
        self.create_grid_infos(**grid_config)
        self.collapse_z = collapse_z

    def create_grid_infos(self, x, y, z, **kwargs):
        self.grid_lower_bound = torch.Tensor([cfg[0] for cfg in [x, y, z]])
        self.grid_interval = torch.Tensor([cfg[2] for cfg in [x, y, z]])
        self.grid_size = torch.Tensor([(cfg[1] - cfg[0]) / cfg[2] for cfg in [x, y, z]])

    def voxel_pooling_v2(self, coor, depth, feat):
        ranks_bev, ranks_depth, ranks_feat, \
            interval_starts, interval_lengths = \
            self.voxel_pooling_prepare_v2(coor)
        if ranks_feat is None:
            print('warning ---> no points within the predefined '
                  'bev receptive field')
            dummy = torch.zeros(size=[
                feat.shape[0], feat.shape[2],
                int(self.grid_size[2]),
                int(self.grid_size[0]),
                int(self.grid_size[1])
            ]).to(feat)
            dummy = torch.cat(dummy.unbind(dim=2), 1)
            return dummy
        feat = feat.permute(0, 1, 3, 4, 2)
        bev_feat_shape = (depth.shape[0], int(self.grid_size[2]),
                          int(self.grid_size[1]), int(self.grid_size[0]),
                          feat.shape[-1])  # (B, Z, Y, X, C)
        bev_feat = bev_pool_v2(depth, feat, ranks_depth, ranks_feat, ranks_bev,
                               bev_feat_shape, interval_starts,
                               interval_lengths)
        # collapse Z
        if self.collapse_z:
            bev_feat = torch.cat(bev_feat.unbind(dim=2), 1)
        return bev_feat

    def voxel_pooling_prepare_v2(self, coor):
        B, N, D, H, W, _ = coor.shape
        num_points = B * N * D * H * W
        # record the index of selected points for acceleration purpose
        ranks_depth = torch.range(
            0, num_points - 1, dtype=torch.int, device=coor.device)
        ranks_feat = torch.range(
            0, num_points // D - 1, dtype=torch.int, device=coor.device)
        ranks_feat = ranks_feat.reshape(B, N, 1, H, W)
        ranks_feat = ranks_feat.expand(B, N, D, H, W).flatten()
        # convert coordinate into the voxel space
        coor = ((coor - self.grid_lower_bound.to(coor)) /
                self.grid_interval.to(coor))
        coor = coor.long().view(num_points, 3)
        batch_idx = torch.range(0, B - 1).reshape(B, 1). \
            expand(B, num_points // B).reshape(num_points, 1).to(coor)
        coor = torch.cat((coor, batch_idx), 1)

        # filter out points that are outside box
        kept = (coor[:, 0] >= 0) & (coor[:, 0] < self.grid_size[0]) & \
               (coor[:, 1] >= 0) & (coor[:, 1] < self.grid_size[1]) & \
               (coor[:, 2] >= 0) & (coor[:, 2] < self.grid_size[2])
        if len(kept) == 0:
            return None, None, None, None, None
        coor, ranks_depth, ranks_feat = \
            coor[kept], ranks_depth[kept], ranks_feat[kept]
        # get tensors from the same voxel next to each other
        ranks_bev = coor[:, 3] * (
            self.grid_size[2] * self.grid_size[1] * self.grid_size[0])
        ranks_bev += coor[:, 2] * (self.grid_size[1] * self.grid_size[0])
        ranks_bev += coor[:, 1] * self.grid_size[0] + coor[:, 0]
        order = ranks_bev.argsort()
        ranks_bev, ranks_depth, ranks_feat = \
            ranks_bev[order], ranks_depth[order], ranks_feat[order]

        kept = torch.ones(
            ranks_bev.shape[0], device=ranks_bev.device, dtype=torch.bool)
        kept[1:] = ranks_bev[1:] != ranks_bev[:-1]
        interval_starts = torch.where(kept)[0].int()
        if len(interval_starts) == 0:
            return None, None, None, None, None
        interval_lengths = torch.zeros_like(interval_starts)
        interval_lengths[:-1] = interval_starts[1:] - interval_starts[:-1]
        interval_lengths[-1] = ranks_bev.shape[0] - interval_starts[-1]
        return ranks_bev.int().contiguous(), ranks_depth.int().contiguous(
        ), ranks_feat.int().contiguous(), interval_starts.int().contiguous(
        ), interval_lengths.int().contiguous()

    def forward(self, coor, depth, tran_feat):
        # coor: frustum points in ego space (B, N, D, H, W, 3); depth: (B, N, D, H, W); tran_feat: (B, N, C, H, W)
        return self.voxel_pooling_v2(coor, depth, tran_feat)


def make_model():
    grid_config = {'x': [-8.0, 8.0, 1.0], 'y': [-8.0, 8.0, 1.0], 'z': [-2.0, 2.0, 4.0], 'depth': [1.0, 9.0, 1.0]}
    return LSSViewTransformer(grid_config).eval()


def _frame(spread):
    B, N, D, H, W, C = 1, 2, 8, 4, 6, 16
    coor = (torch.rand(B, N, D, H, W, 3) * 2 - 1) * torch.tensor([spread, spread, 2.5])
    depth = torch.rand(B, N, D, H, W).softmax(2)
    return coor, depth, torch.randn(B, N, C, H, W)


def example_inputs():
    return _frame(10.0)


def other_inputs():
    return [_frame(12.0), _frame(8.5)]


def probe_inputs():
    return other_inputs()
