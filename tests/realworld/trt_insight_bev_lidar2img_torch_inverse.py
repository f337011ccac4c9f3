"""A BEV camera-to-lidar projection (PETR/DETR3D-style, as deployed through ONNX to TensorRT) inverts the
per-camera lidar2img matrices with torch.inverse in forward; the report (a TensorRT deployment notes repo)
says torch.inverse does not export to ONNX and has to be defined as a custom plugin.

Source: https://github.com/lix19937/tensorrt-insight/issues/52
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img_feats": {0: "batch"}, "lidar2img": {0: "batch"}}
BLIND = "operators-30"


class CameraRayEmbedding(nn.Module):
    def __init__(self, embed_dims=32, depth_num=4, depth_start=1.0, depth_max=50.0):
        super().__init__()
        self.depth_num = depth_num
        index = torch.arange(depth_num).float()
        self.register_buffer("coords_d", depth_start + (depth_max - depth_start) * index / depth_num)
        self.position_encoder = nn.Sequential(
            nn.Conv2d(depth_num * 3, embed_dims, kernel_size=1),
            nn.ReLU(),
            nn.Conv2d(embed_dims, embed_dims, kernel_size=1),
        )

    def forward(self, img_feats, lidar2img):
        # img_feats: [B, N, C, H, W], lidar2img: [B, N, 4, 4]
        B, N, C, H, W = img_feats.shape
        ys, xs = torch.meshgrid(torch.arange(H).float(), torch.arange(W).float(), indexing="ij")
        coords = torch.stack([xs, ys], dim=-1)[:, :, None, :].repeat(1, 1, self.depth_num, 1)
        d = self.coords_d.view(1, 1, -1, 1).expand(H, W, -1, 1)
        coords = torch.cat([coords * d, d, torch.ones_like(d)], dim=-1)  # H, W, D, 4
        img2lidars = torch.inverse(lidar2img)  # B, N, 4, 4
        coords3d = torch.matmul(img2lidars[:, :, None, None, None], coords[None, None, ..., None])
        coords3d = coords3d.squeeze(-1)[..., :3]  # B, N, H, W, D, 3
        coords3d = coords3d.permute(0, 1, 3, 4, 2, 5).reshape(B * N, -1, H, W)
        return self.position_encoder(coords3d).view(B, N, -1, H, W) + img_feats


def make_model():
    return CameraRayEmbedding()


def _lidar2img(b, n):
    m = torch.eye(4).repeat(b, n, 1, 1)
    m[..., :3, :3] += 0.1 * torch.randn(b, n, 3, 3)
    m[..., :3, 3] = torch.randn(b, n, 3)
    return m


def example_inputs():
    return (torch.randn(2, 6, 32, 4, 8), _lidar2img(2, 6))


def other_inputs():
    return [(torch.randn(3, 6, 32, 4, 8), _lidar2img(3, 6)), (torch.randn(1, 6, 32, 4, 8), _lidar2img(1, 6))]


def probe_inputs():
    return other_inputs()
