"""ONX305 on kornia's `normal_transform_pixel` (MVDet's ground-plane warp): a matrix built from
literals with `torch.tensor`, two items then scaled in place by the image size. The legacy exporter
registers the built tensor as a constant that the writes then change, so the exported constant is
the written matrix and the graph scales it again: silently wrong. `.clone()` writes into a copy."""
import torch
from torch import nn


def normal_transform_pixel(height, width):
    tr_mat = torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]])
    tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / (width - 1.0)
    tr_mat[1, 1] = tr_mat[1, 1] * 2.0 / (height - 1.0)
    return tr_mat.unsqueeze(0)


class PixelToNormalized(nn.Module):
    def forward(self, points: torch.Tensor):
        h, w = 30, 40
        homogeneous = torch.cat([points, torch.ones_like(points[..., :1])], dim=-1)
        return homogeneous @ normal_transform_pixel(h, w).transpose(1, 2)


def make_model():
    return PixelToNormalized()


def example_inputs():
    torch.manual_seed(0)
    return (torch.rand(2, 5, 2) * 30,)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.rand(3, 7, 2) * 30,), (torch.rand(1, 4, 2) * 40,)]


DYNAMIC = {0: {0: "batch", 1: "points"}}
