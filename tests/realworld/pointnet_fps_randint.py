"""PointNet++ set abstraction: farthest point sampling seeds each batch with
`torch.randint(0, N, (B,), dtype=torch.long)`; "Exporting the operator 'aten::randint' to ONNX
opset version 14 is not supported".

Source: https://github.com/pytorch/pytorch/issues/131635
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"xyz": {0: "batch", 1: "points"}}
BLIND = "operators-1"


def farthest_point_sample(xyz, npoint):
    device = xyz.device
    B, N, C = xyz.shape
    centroids = torch.zeros(B, npoint, dtype=torch.long).to(device)
    distance = torch.ones(B, N).to(device) * 1e10
    farthest = torch.randint(0, N, (B,), dtype=torch.long).to(device)
    batch_indices = torch.arange(B, dtype=torch.long).to(device)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch_indices, farthest, :].view(B, 1, 3)
        dist = torch.sum((xyz - centroid) ** 2, -1)
        mask = dist < distance
        distance[mask] = dist[mask]
        farthest = torch.max(distance, -1)[1]
    return centroids


def index_points(points, idx):
    device = points.device
    B = points.shape[0]
    view_shape = list(idx.shape)
    view_shape[1:] = [1] * (len(view_shape) - 1)
    repeat_shape = list(idx.shape)
    repeat_shape[0] = 1
    batch_indices = torch.arange(B, dtype=torch.long).to(device).view(view_shape).repeat(repeat_shape)
    new_points = points[batch_indices, idx, :]
    return new_points


class SetAbstraction(nn.Module):
    def __init__(self, npoint=8):
        super().__init__()
        self.npoint = npoint
        self.mlp = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 32))

    def forward(self, xyz):
        fps_idx = farthest_point_sample(xyz, self.npoint)
        new_xyz = index_points(xyz, fps_idx)
        return self.mlp(new_xyz)


def make_model():
    return SetAbstraction()


def example_inputs():
    return (torch.randn(2, 64, 3),)


def other_inputs():
    return [(torch.randn(3, 100, 3),), (torch.randn(1, 40, 3),)]


def probe_inputs():
    return other_inputs()
