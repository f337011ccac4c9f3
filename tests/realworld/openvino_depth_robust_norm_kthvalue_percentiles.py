"""A depth/disparity head normalizes its prediction robustly per image: it takes a low and a high
order statistic of the flattened map with torch.kthvalue and rescales between them. OpenVINO's
PyTorch frontend has no conversion for aten::kthvalue (tracked as a good-first-issue to support it),
so the model does not convert.

Source: https://github.com/openvinotoolkit/openvino/issues/29702
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-21"


class DepthHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 1, 3, padding=1),
        )

    def forward(self, image):
        disp = self.body(image)
        flat = disp.flatten(1)
        n = flat.shape[1]
        lo = torch.kthvalue(flat, max(1, int(0.05 * n)), dim=1, keepdim=True).values
        hi = torch.kthvalue(flat, max(1, int(0.95 * n)), dim=1, keepdim=True).values
        norm = (flat - lo) / (hi - lo + 1e-6)
        return norm.clamp(0.0, 1.0).view_as(disp)


def make_model():
    return DepthHead().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 16, 64),)]


def probe_inputs():
    return other_inputs()
