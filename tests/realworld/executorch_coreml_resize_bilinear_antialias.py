"""A vision model for ExecuTorch's CoreML backend starts with a bilinear resize layer,
F.interpolate(..., mode="bilinear", antialias=True); lowering fails with "PyTorch convert function for op
'_upsample_bilinear2d_aa' not implemented" (the anti-aliased bilinear resize has no converter).

Source: https://github.com/pytorch/executorch/issues/5728
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-20"


class ResizeBilinear(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x):
        return F.interpolate(x, size=self.size, mode="bilinear", align_corners=False, antialias=True)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.resize = ResizeBilinear((64, 64))
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        x = self.resize(x)
        x = torch.relu(self.conv(x))
        return self.head(x)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 120),), (torch.randn(3, 3, 200, 150),)]


def probe_inputs():
    return other_inputs()
