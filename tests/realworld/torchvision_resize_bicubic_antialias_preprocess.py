"""A classification preprocessing graph is exported on its own: torchvision's `Resize((224, 224),
interpolation=BICUBIC, antialias=True)` applied to an image of any height/width (dynamic axes h, w); export
fails with "Exporting the operator ::_upsample_bicubic2d_aa to ONNX opset version 16 is not supported".

Source: https://github.com/pytorch/vision/issues/6806
"""
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"img": {2: "h", 3: "w"}}
BLIND = "operators-5"


class Resize(nn.Module):
    """torchvision.transforms.Resize on a float image tensor (the lines of
    torchvision.transforms.functional.resize that run for a fixed (h, w) size)."""

    def __init__(self, size: List[int], interpolation: str = "bicubic", max_size: Optional[int] = None,
                 antialias: Optional[bool] = True):
        super().__init__()
        self.size = size
        self.interpolation = interpolation
        self.max_size = max_size
        self.antialias = antialias

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        align_corners = False if self.interpolation in ["bilinear", "bicubic"] else None
        return F.interpolate(img, size=[self.size[0], self.size[1]], mode=self.interpolation,
                             align_corners=align_corners, antialias=self.antialias)


def make_model():
    # resize = torchvision.transforms.Resize(size=(224, 224), interpolation=InterpolationMode.BICUBIC,
    #                                        max_size=None, antialias=True)
    return Resize(size=(224, 224), interpolation="bicubic", max_size=None, antialias=True).eval()


def example_inputs():
    return (torch.randn(1, 3, 500, 400),)


def other_inputs():
    return [(torch.randn(1, 3, 320, 640),), (torch.randn(1, 3, 768, 300),)]


def probe_inputs():
    return other_inputs()
