"""DINOv2's position-embedding interpolation (transformers#26790): the table resized by a float
scale computed from the image size, `scale_factor=((h // 14 + 0.1) / sqrt(n), ...)`, mode bicubic.
torch.export reads the scale as a constant: the exported model keeps the example's grid (the
patch tokens of another image size no longer add up). ONX404 calls `_onnx_interpolate_scaled`."""
import math

import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, 14, stride=14)
        self.position = nn.Parameter(torch.randn(1, 8, 4, 4))

    def forward(self, pixels):
        tokens = self.proj(pixels)
        height, width = pixels.shape[2] // 14 + 0.1, pixels.shape[3] // 14 + 0.1
        n = math.sqrt(self.position.shape[2] * self.position.shape[3])
        table = F.interpolate(self.position, scale_factor=(height / n, width / n), mode="bicubic", align_corners=False)
        return tokens + table


def make_model():
    torch.manual_seed(0)
    return PatchEmbedding().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 84, 112),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(1, 3, 140, 70),), (torch.randn(3, 3, 56, 196),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
