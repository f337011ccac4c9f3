"""A homography applied to points (kornia's warp_perspective): the inverse fails both exporters
(ONX501 fixes it in the source); once it exports, the dynamo model fails to load in onnxruntime at
`torch.squeeze(points, dim=-1)` of a dimension of size 3, which torch leaves alone. Only the fixed
model's export names that failure: the repair keyed on it must be tried after the fix loop."""

import torch
from torch import nn


class Warp(nn.Module):
    def forward(self, points, homography):
        inverse = torch.inverse(homography)
        moved = torch.bmm(points, inverse.transpose(1, 2))
        moved = torch.squeeze(moved, dim=-1)
        return moved[..., :2] / (moved[..., 2:] + 1e-6)


def make_model():
    return Warp()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    homography = torch.eye(3).expand(2, 3, 3) + 0.1 * torch.randn(2, 3, 3, generator=g)
    return torch.randn(2, 5, 3, generator=g), homography
