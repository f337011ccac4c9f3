"""A 3-D feature head pools a (N, C, D, H, W) volume with nn.AdaptiveMaxPool3d to a fixed evenly
divisible grid; the PR that adds adaptive_max_pool2d/3d decompositions for ONNX export says the dynamo
exporter has no decomposition for aten.adaptive_max_pool3d (only global pooling was ever mapped), so the
op does not export (legacy: "adaptive_max_pool3d, input size not accessible" under dynamic sizes).

Source: https://github.com/pytorch/pytorch/pull/184396
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
BLIND = "operators-64"


class VolumeHead(nn.Module):
    def __init__(self, in_ch=4, out_ch=8):
        super().__init__()
        self.conv = nn.Conv3d(in_ch, out_ch, kernel_size=3, padding=1)
        self.pool = nn.AdaptiveMaxPool3d((2, 4, 4))
        self.fc = nn.Linear(out_ch * 2 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = self.pool(x)
        return self.fc(x.flatten(1))


def make_model():
    return VolumeHead().eval()


def example_inputs():
    return (torch.randn(2, 4, 8, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 4, 4, 12, 20),), (torch.randn(1, 4, 6, 8, 8),)]


def probe_inputs():
    return other_inputs()
