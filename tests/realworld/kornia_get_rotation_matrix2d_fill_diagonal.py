"""kornia's get_rotation_matrix2d (used by rotation augmentations) builds the per-sample scaling
matrix as torch.zeros((2, 2)).fill_diagonal_(1).repeat(B, 1, 1); the fix commit removes the
fill_diagonal operation "for better ONNX support" (aten::fill_diagonal_ has no ONNX export),
replacing it with torch.eye.

Source: https://github.com/kornia/kornia/pull/1178
"""
import math

import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"center": {0: "batch"}, "angle": {0: "batch"}, "scale": {0: "batch"}}
BLIND = "operators-19"

pi = torch.tensor(math.pi)


def deg2rad(tensor: torch.Tensor) -> torch.Tensor:
    return tensor * pi.to(tensor.device).type(tensor.dtype) / 180.0


def angle_to_rotation_matrix(angle: torch.Tensor) -> torch.Tensor:
    ang_rad = deg2rad(angle)
    cos_a: torch.Tensor = torch.cos(ang_rad)
    sin_a: torch.Tensor = torch.sin(ang_rad)
    return torch.stack([cos_a, sin_a, -sin_a, cos_a], dim=-1).view(*angle.shape, 2, 2)


def get_rotation_matrix2d(center: torch.Tensor, angle: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    # convert angle and apply scale
    rotation_matrix: torch.Tensor = angle_to_rotation_matrix(angle)
    scaling_matrix: torch.Tensor = (
        torch.zeros((2, 2), device=rotation_matrix.device, dtype=rotation_matrix.dtype)
        .fill_diagonal_(1)
        .repeat(rotation_matrix.size(0), 1, 1)
    )

    scaling_matrix = scaling_matrix * scale.unsqueeze(dim=2).repeat(1, 1, 2)
    scaled_rotation: torch.Tensor = rotation_matrix @ scaling_matrix
    alpha: torch.Tensor = scaled_rotation[:, 0, 0]
    beta: torch.Tensor = scaled_rotation[:, 0, 1]

    # unpack the center to x, y coordinates
    x: torch.Tensor = center[..., 0]
    y: torch.Tensor = center[..., 1]

    # create output tensor
    batch_size: int = center.shape[0]
    one = torch.tensor(1.0, device=center.device, dtype=center.dtype)
    M: torch.Tensor = torch.zeros(batch_size, 2, 3, device=center.device, dtype=center.dtype)
    M[..., 0:2, 0:2] = scaled_rotation
    M[..., 0, 2] = (one - alpha) * x - beta * y
    M[..., 1, 2] = beta * x + (one - alpha) * y
    return M


class RotationMatrix(nn.Module):
    def forward(self, center, angle, scale):
        return get_rotation_matrix2d(center, angle, scale)


def make_model():
    return RotationMatrix().eval()


def _inputs(b):
    return (torch.rand(b, 2) * 64, torch.rand(b) * 360.0 - 180.0, torch.rand(b, 2) + 0.5)


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(5), _inputs(1)]


def probe_inputs():
    return other_inputs()
