"""LiDAR PointPillars-style encoder of a multi-modal ADAS fusion model: it quantizes points to a 128x128
pillar grid and uses `torch.bincount(flat_idx, minlength=self.ny * self.nx)` (points per pillar) as the BEV
density channel before a conv stack. The repository's export script gives up on ONNX ("ONNX export skipped
- bincount op not supported.") and falls back to TorchScript.

Source: https://github.com/RRN2507/Multi-Modal-Sensor-Fusion/blob/4a2ddf7224345977a6f014ad264b34fdf0f02b7b/export_onnx.py
"""
from typing import Tuple

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"points": {1: "num_points"}}
BLIND = "operators-45"


class PointPillarsEncoder(nn.Module):
    def __init__(
        self,
        voxel_size: Tuple[float, float] = (0.8, 0.8),
        pc_range: Tuple = (-51.2, -51.2, -5.0, 51.2, 51.2, 3.0),
        max_pts_per_pillar: int = 32,
        pillar_ch: int = 64,
        bev_ch: int = 32,
    ):
        super().__init__()
        self.vx, self.vy = voxel_size
        self.pc_range = pc_range
        self.max_pts = max_pts_per_pillar
        self.nx = int((pc_range[3] - pc_range[0]) / self.vx)  # 128
        self.ny = int((pc_range[4] - pc_range[1]) / self.vy)  # 128
        self.scatter_conv = nn.Sequential(
            nn.Conv2d(pillar_ch, bev_ch, 3, padding=1),
            nn.BatchNorm2d(bev_ch),
            nn.ReLU(inplace=True),
        )

    def voxelize(self, points: torch.Tensor):
        B, N, _ = points.shape
        x, y, z, intensity = [points[..., i] for i in range(4)]
        px = ((x - self.pc_range[0]) / self.vx).long().clamp(0, self.nx - 1)
        py = ((y - self.pc_range[1]) / self.vy).long().clamp(0, self.ny - 1)
        return px, py, points

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        B = points.shape[0]
        px, py, raw = self.voxelize(points)
        bev = torch.zeros(B, 64, self.ny, self.nx, device=points.device)
        for b in range(B):
            ix = px[b].clamp(0, self.nx - 1)
            iy = py[b].clamp(0, self.ny - 1)
            # Use point count per pillar as feature
            flat_idx = (iy * self.nx + ix).clamp(0, self.ny * self.nx - 1)
            count = torch.bincount(flat_idx, minlength=self.ny * self.nx)
            bev[b, 0] = count.view(self.ny, self.nx).float() / 32.0
        return self.scatter_conv(bev)


class LiDAREncoder(nn.Module):
    def __init__(self, bev_ch: int = 32):
        super().__init__()
        self.pillars = PointPillarsEncoder(bev_ch=bev_ch)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        return self.pillars(points)


def make_model():
    return LiDAREncoder().eval()


def _cloud(n):
    return torch.randn(1, n, 5) * 20.0


def example_inputs():
    return (_cloud(3000),)


def other_inputs():
    return [(_cloud(5200),), (_cloud(700),)]


def probe_inputs():
    return other_inputs()
