"""Spatial-transformer style aligner: a small CNN regresses a 3x3 homography per image, the
model inverts it with `torch.inverse` to map output pixels back to the source and samples with
`grid_sample`. The report: "Exporting the operator inverse to ONNX opset version 11 is not
supported" (torch.inverse has no ONNX lowering).

Source: https://github.com/onnx/onnx/issues/3504
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {0: "batch"}}
BLIND = "operators-9"


class HomographyAligner(nn.Module):
    def __init__(self, size=32):
        super().__init__()
        self.size = size
        self.loc = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 8),
        )
        nn.init.zeros_(self.loc[-1].weight)
        nn.init.zeros_(self.loc[-1].bias)
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, size), torch.linspace(-1, 1, size), indexing="ij")
        self.register_buffer("base", torch.stack([xs, ys, torch.ones_like(xs)], -1).view(-1, 3))

    def forward(self, img):
        b = img.shape[0]
        h = self.loc(img) * 0.1 + torch.tensor([1., 0., 0., 0., 1., 0., 0., 0.])
        H = torch.cat([h, torch.ones(b, 1)], dim=1).view(b, 3, 3)
        H_inv = torch.inverse(H)
        pts = self.base.unsqueeze(0) @ H_inv.transpose(1, 2)
        grid = pts[..., :2] / pts[..., 2:3]
        grid = grid.view(b, self.size, self.size, 2)
        return F.grid_sample(img, grid, align_corners=True)


def make_model():
    torch.manual_seed(0)
    m = HomographyAligner()
    with torch.no_grad():
        m.loc[-1].weight.normal_(0, 0.05)
    return m


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(4, 3, 32, 32),), (torch.randn(1, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
