"""Model that normalises any input image to a fixed 1024x1024 with `torchvision.transforms.functional.resize(x,
size=[1024, 1024])` (bilinear, antialias=True on tensors) before a patch-embedding backbone; export fails on
`_upsample_bilinear2d_aa` ("[ONNX] Export fails on torchvision.transforms.functional.resize").

Source: https://github.com/pytorch/pytorch/issues/148840
"""
from typing import List

import torch
import torch.nn.functional as nnF
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


class functional:  # the few lines of torchvision.transforms.functional used here (tensor path)
    @staticmethod
    def resize(img: torch.Tensor, size: List[int], antialias: bool = True) -> torch.Tensor:
        return nnF.interpolate(img, size=size, mode="bilinear", align_corners=False, antialias=antialias)


class Model(torch.nn.Module):

    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, 16, kernel_size=16, stride=16)

    def forward(self, x):
        y = functional.resize(x, size=[1024, 1024])
        return self.patch_embed(y)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.rand(1, 3, 400, 500),)


def other_inputs():
    return [(torch.rand(2, 3, 300, 640),), (torch.rand(1, 3, 720, 480),)]


def probe_inputs():
    return other_inputs()
