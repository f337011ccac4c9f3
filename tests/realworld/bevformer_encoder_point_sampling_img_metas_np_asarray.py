"""BEVFormer's encoder projects the 3D BEV reference points into every camera in `point_sampling`, which
gathers the per-sample `img_meta['lidar2img']` matrices with `np.asarray(lidar2img)` +
`reference_points.new_tensor(...)`, divides by the Python `img_metas[0]['img_shape']` and cleans the bool mask
with `torch.nan_to_num(bev_mask)`; the TensorRT port (BEVFormer_tensorrt) had to replace it with
`point_sampling_trt(reference_points, pc_range, lidar2img, image_shape)` taking lidar2img as a tensor input
and casting the mask to int, since the NumPy round trip freezes the camera matrices at export.

Source: https://github.com/DerryHub/BEVFormer_tensorrt/blob/main/det2trt/models/modules/encoder.py
"""
import numpy as np
import torch
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {}
BLIND = "domains-36"


class BEVFormerEncoder(nn.Module):
    def __init__(self, pc_range=(-51.2, -51.2, -5.0, 51.2, 51.2, 3.0), num_points_in_pillar=4,
                 bev_h=10, bev_w=10):
        super().__init__()
        self.pc_range = list(pc_range)
        self.num_points_in_pillar = num_points_in_pillar
        self.bev_h, self.bev_w = bev_h, bev_w

    @staticmethod
    def get_reference_points(H, W, Z=8, num_points_in_pillar=4, bs=1, device="cpu", dtype=torch.float):
        zs = torch.linspace(0.5, Z - 0.5, num_points_in_pillar, dtype=dtype,
                            device=device).view(-1, 1, 1).expand(num_points_in_pillar, H, W) / Z
        xs = torch.linspace(0.5, W - 0.5, W, dtype=dtype,
                            device=device).view(1, 1, W).expand(num_points_in_pillar, H, W) / W
        ys = torch.linspace(0.5, H - 0.5, H, dtype=dtype,
                            device=device).view(1, H, 1).expand(num_points_in_pillar, H, W) / H
        ref_3d = torch.stack((xs, ys, zs), -1)
        ref_3d = ref_3d.permute(0, 3, 1, 2).flatten(2).permute(0, 2, 1)
        ref_3d = ref_3d[None].repeat(bs, 1, 1, 1)
        return ref_3d

    def point_sampling(self, reference_points, pc_range, img_metas):
        lidar2img = []
        for img_meta in img_metas:
            lidar2img.append(img_meta['lidar2img'])
        lidar2img = np.asarray(lidar2img)
        lidar2img = reference_points.new_tensor(lidar2img)  # (B, N, 4, 4)
        reference_points = reference_points.clone()

        reference_points[..., 0:1] = reference_points[..., 0:1] * (pc_range[3] - pc_range[0]) + pc_range[0]
        reference_points[..., 1:2] = reference_points[..., 1:2] * (pc_range[4] - pc_range[1]) + pc_range[1]
        reference_points[..., 2:3] = reference_points[..., 2:3] * (pc_range[5] - pc_range[2]) + pc_range[2]

        reference_points = torch.cat(
            (reference_points, torch.ones_like(reference_points[..., :1])), -1)

        reference_points = reference_points.permute(1, 0, 2, 3)
        D, B, num_query = reference_points.size()[:3]
        num_cam = lidar2img.size(1)

        reference_points = reference_points.view(
            D, B, 1, num_query, 4).repeat(1, 1, num_cam, 1, 1).unsqueeze(-1)

        lidar2img = lidar2img.view(
            1, B, num_cam, 1, 4, 4).repeat(D, 1, 1, num_query, 1, 1)

        reference_points_cam = torch.matmul(lidar2img.to(torch.float32),
                                            reference_points.to(torch.float32)).squeeze(-1)
        eps = 1e-5

        bev_mask = (reference_points_cam[..., 2:3] > eps)
        reference_points_cam = reference_points_cam[..., 0:2] / torch.maximum(
            reference_points_cam[..., 2:3], torch.ones_like(reference_points_cam[..., 2:3]) * eps)

        reference_points_cam[..., 0] /= img_metas[0]['img_shape'][0][1]
        reference_points_cam[..., 1] /= img_metas[0]['img_shape'][0][0]

        bev_mask = (bev_mask & (reference_points_cam[..., 1:2] > 0.0)
                    & (reference_points_cam[..., 1:2] < 1.0)
                    & (reference_points_cam[..., 0:1] < 1.0)
                    & (reference_points_cam[..., 0:1] > 0.0))
        bev_mask = torch.nan_to_num(bev_mask)

        reference_points_cam = reference_points_cam.permute(2, 1, 3, 0, 4)
        bev_mask = bev_mask.permute(2, 1, 3, 0, 4).squeeze(-1)

        return reference_points_cam, bev_mask

    def forward(self, bev_query, img_metas):
        bs = bev_query.size(0)
        ref_3d = self.get_reference_points(
            self.bev_h, self.bev_w, self.pc_range[5] - self.pc_range[2], self.num_points_in_pillar,
            bs=bs, device=bev_query.device, dtype=bev_query.dtype)
        reference_points_cam, bev_mask = self.point_sampling(ref_3d, self.pc_range, img_metas)
        return reference_points_cam, bev_mask


class BEVFormerExport(nn.Module):
    """Export wrapper: the per-frame camera matrices come in as a tensor and are put back into img_metas."""

    def __init__(self, img_shape=(480, 800, 3)):
        super().__init__()
        self.encoder = BEVFormerEncoder()
        self.img_shape = img_shape

    def forward(self, bev_query, lidar2img):
        img_metas = [dict(lidar2img=lidar2img[0], img_shape=[self.img_shape] * lidar2img.shape[1])]
        return self.encoder(bev_query, img_metas)


def _lidar2img(seed):
    g = torch.Generator().manual_seed(seed)
    intr = torch.tensor([[400.0, 0.0, 400.0, 0.0], [0.0, 400.0, 240.0, 0.0], [0.0, 0.0, 1.0, 0.0],
                         [0.0, 0.0, 0.0, 1.0]])
    mats = []
    for cam in range(6):
        yaw = cam * (2 * np.pi / 6) + float(torch.rand((), generator=g)) * 0.3
        c, s = np.cos(yaw), np.sin(yaw)
        # lidar (x fwd, y left, z up) -> camera (x right, y down, z fwd), rotated by yaw
        rot = torch.tensor([[-s, c, 0.0], [0.0, 0.0, -1.0], [c, s, 0.0]], dtype=torch.float32)
        ext = torch.eye(4)
        ext[:3, :3] = rot
        ext[:3, 3] = torch.randn(3, generator=g) * 0.5
        mats.append(intr @ ext)
    return torch.stack(mats)[None]  # (1, 6, 4, 4)


def make_model():
    return BEVFormerExport().eval()


def example_inputs():
    return (torch.randn(1, 100, 32), _lidar2img(0))


def other_inputs():
    return [(torch.randn(1, 100, 32), _lidar2img(1)), (torch.randn(1, 100, 32), _lidar2img(2))]


def probe_inputs():
    return other_inputs()
