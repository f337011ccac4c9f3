"""PointPillars (zhulf0804/PointPillars) PillarEncoder: after the pillar embedding, the BEV scatter takes the
number of point clouds from the data, `bs = coors_batch[-1, 0] + 1`, loops `for i in range(bs)`, masks that
cloud's pillars with `coors_batch[:, 0] == i` and scatters them into a canvas. The deployment commit
("Support PyTorch2ONNX && ONNX2TRT", pillar_num exported as a dynamic axis) replaced the loop body with a
single-cloud flat scatter ("only batch_size=1 is supported") because the tensor-driven loop/mask do not export.

Source: https://github.com/zhulf0804/PointPillars/commit/db4c6008db39d949e86bf70f798458094b048c35
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {
    "pillars": {0: "pillar_num"},
    "coors_batch": {0: "pillar_num"},
    "npoints_per_pillar": {0: "pillar_num"},
}
BLIND = "domains-56"


class PillarEncoder(nn.Module):
    def __init__(self, voxel_size, point_cloud_range, in_channel, out_channel):
        super().__init__()
        self.out_channel = out_channel
        self.vx, self.vy = voxel_size[0], voxel_size[1]
        self.x_offset = voxel_size[0] / 2 + point_cloud_range[0]
        self.y_offset = voxel_size[1] / 2 + point_cloud_range[1]
        self.x_l = int((point_cloud_range[3] - point_cloud_range[0]) / voxel_size[0])
        self.y_l = int((point_cloud_range[4] - point_cloud_range[1]) / voxel_size[1])

        self.conv = nn.Conv1d(in_channel, out_channel, 1, bias=False)
        self.bn = nn.BatchNorm1d(out_channel, eps=1e-3, momentum=0.01)

    def forward(self, pillars, coors_batch, npoints_per_pillar):
        device = pillars.device
        # 1. calculate offset to the points center (in each pillar)
        offset_pt_center = pillars[:, :, :3] - torch.sum(pillars[:, :, :3], dim=1, keepdim=True) / npoints_per_pillar[:, None, None]

        # 2. calculate offset to the pillar center
        x_offset_pi_center = pillars[:, :, :1] - (coors_batch[:, None, 1:2] * self.vx + self.x_offset)
        y_offset_pi_center = pillars[:, :, 1:2] - (coors_batch[:, None, 2:3] * self.vy + self.y_offset)

        # 3. encoder
        features = torch.cat([pillars, offset_pt_center, x_offset_pi_center, y_offset_pi_center], dim=-1)
        features[:, :, 0:1] = x_offset_pi_center # tmp
        features[:, :, 1:2] = y_offset_pi_center # tmp

        # 4. find mask for (0, 0, 0) and update the encoded features
        voxel_ids = torch.arange(0, pillars.size(1)).to(device)
        mask = voxel_ids[:, None] < npoints_per_pillar[None, :]
        mask = mask.permute(1, 0).contiguous()
        features *= mask[:, :, None]

        # 5. embedding
        features = features.permute(0, 2, 1).contiguous()
        features = F.relu(self.bn(self.conv(features)))
        pooling_features = torch.max(features, dim=-1)[0]

        # 6. pillar scatter
        batched_canvas = []
        bs = coors_batch[-1, 0] + 1
        for i in range(bs):
            cur_coors_idx = coors_batch[:, 0] == i
            cur_coors = coors_batch[cur_coors_idx, :]
            cur_features = pooling_features[cur_coors_idx]

            canvas = torch.zeros((self.x_l, self.y_l, self.out_channel), dtype=torch.float32, device=device)
            canvas[cur_coors[:, 1], cur_coors[:, 2]] = cur_features
            canvas = canvas.permute(2, 1, 0).contiguous()
            batched_canvas.append(canvas)
        batched_canvas = torch.stack(batched_canvas, dim=0) # (bs, in_channel, self.y_l, self.x_l)
        return batched_canvas


class PointPillarsCore(nn.Module):
    def __init__(self, voxel_size=[0.16, 0.16, 4], point_cloud_range=[0, -2.56, -3, 5.12, 2.56, 1]):
        super().__init__()
        self.pillar_encoder = PillarEncoder(voxel_size=voxel_size, point_cloud_range=point_cloud_range,
                                            in_channel=9, out_channel=16)
        self.backbone = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.conv_cls = nn.Conv2d(16, 3, 1)

    def forward(self, pillars, coors_batch, npoints_per_pillar):
        pillar_features = self.pillar_encoder(pillars, coors_batch, npoints_per_pillar)
        return self.conv_cls(self.backbone(pillar_features))


def make_model():
    return PointPillarsCore().eval()


def _pillars(counts, num_points=8, grid=32):
    # one block of pillars per point cloud, coors_batch[:, 0] = cloud index (sorted, as PillarLayer pads it)
    pillars, coors, npts = [], [], []
    for b, n in enumerate(counts):
        flat = torch.randperm(grid * grid)[:n]
        c = torch.stack([torch.full((n,), b), torch.zeros(n, dtype=torch.long), flat // grid, flat % grid], 1)
        c = c[:, [0, 2, 3, 1]]  # (batch, x, y, z)
        pillars.append(torch.randn(n, num_points, 4))
        coors.append(c)
        npts.append(torch.randint(1, num_points + 1, (n,), dtype=torch.int32))
    return torch.cat(pillars), torch.cat(coors), torch.cat(npts)


def example_inputs():
    return _pillars([60])


def other_inputs():
    return [_pillars([90]), _pillars([25]), _pillars([40, 30])]


def probe_inputs():
    return other_inputs()
