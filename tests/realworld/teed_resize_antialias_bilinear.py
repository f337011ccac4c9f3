"""TEED edge detector wrapped for deployment: the wrapper resizes the input to a multiple of 16 with
torchvision's `F.resize` (bilinear, antialias=True on tensors) and resizes the edge map back; export fails with
"Exporting the operator 'aten::_upsample_bilinear2d_aa' to ONNX opset version 17 is not supported".

Source: https://github.com/pytorch/pytorch/issues/121623
"""
from typing import List

import torch
import torch.nn.functional as nnF
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


def resize(img: torch.Tensor, size: List[int], antialias: bool = True) -> torch.Tensor:
    """torchvision.transforms.functional.resize on a float tensor (InterpolationMode.BILINEAR)."""
    return nnF.interpolate(img, size=size, mode="bilinear", align_corners=False, antialias=antialias)


class TED(nn.Module):
    """Stand-in for TEED's TED: three edge maps (side outputs) plus their fusion, at input resolution."""

    def __init__(self):
        super().__init__()
        self.block_1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.block_2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.side_1 = nn.Conv2d(16, 1, 1)
        self.side_2 = nn.Conv2d(32, 1, 1)
        self.block_cat = nn.Conv2d(2, 1, 3, padding=1)

    def forward(self, x):
        b1 = self.block_1(x)
        b2 = self.block_2(b1)
        out_1 = self.side_1(b1)
        out_2 = nnF.interpolate(self.side_2(b2), size=b1.shape[-2:], mode="bilinear", align_corners=False)
        block_cat = self.block_cat(torch.cat([out_1, out_2], dim=1))
        return [out_1, out_2, block_cat]


class AdaptedTeed(nn.Module):

    def __init__(self):
        super().__init__()
        self.ted = TED()
        self.register_buffer('preprocess_mean', torch.FloatTensor([104.007, 116.669, 122.679]).reshape(1, 3, 1, 1),
                             persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        N, C, H, W = x.shape
        x = x - self.preprocess_mean
        x = resize(x, (H // 16 * 16, W // 16 * 16))
        x = self.ted(x)
        x = torch.sigmoid(x[-1])
        x = resize(x, (H, W))
        return x


def make_model():
    return AdaptedTeed().eval()


def example_inputs():
    return (torch.rand(1, 3, 100, 150) * 255,)


def other_inputs():
    return [(torch.rand(2, 3, 75, 120) * 255,), (torch.rand(3, 3, 130, 90) * 255,)]


def probe_inputs():
    return other_inputs()
