"""A regression head predicts a per-sample 3x3 homography and maps points back with its inverse
(`torch.inverse`). Converting the traced model with coremltools fails with "PyTorch convert function for
op 'inverse' not implemented"; the torch.onnx exporters likewise have no conversion for the
`aten::linalg_inv` it lowers to.

Source: https://github.com/pytorch/pytorch/issues/69448
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "batch"}, "points": {0: "batch", 1: "num_points"}}
BLIND = "operators-26"


class HomographyHead(nn.Module):
    def __init__(self, in_dim=64):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, 8))

    def forward(self, feats, points):
        b = feats.shape[0]
        delta = self.mlp(feats) * 0.1
        H = torch.cat([delta, torch.zeros(b, 1)], dim=1).view(b, 3, 3) + torch.eye(3)
        H_inv = torch.inverse(H)
        ones = torch.ones(b, points.shape[1], 1)
        pts_h = torch.cat([points, ones], dim=2)            # B x N x 3
        warped = torch.bmm(pts_h, H_inv.transpose(1, 2))
        return warped[..., :2] / warped[..., 2:3]


def make_model():
    return HomographyHead().eval()


def example_inputs():
    return (torch.randn(2, 64), torch.rand(2, 10, 2))


def other_inputs():
    return [(torch.randn(3, 64), torch.rand(3, 7, 2)), (torch.randn(1, 64), torch.rand(1, 15, 2))]


def probe_inputs():
    return other_inputs()
