"""detectron2's ImageList.from_tensors: the batch padded to a multiple of the backbone's stride,
the size read through a tuple of per-dimension maxima (no static rule follows it). torch.export
specializes it at the `int(math.ceil(...) * stride)` line: silently wrong for other sizes."""
import math

import torch
import torch.nn.functional as F
from torch import nn


def padded(tensors, size_divisibility: int = 0):
    max_size = tuple(max(s) for s in zip(*[img.shape for img in tensors]))
    if size_divisibility > 0:
        stride = size_divisibility
        max_size = list(max_size)
        max_size[-2] = int(math.ceil(max_size[-2] / stride) * stride)
        max_size[-1] = int(math.ceil(max_size[-1] / stride) * stride)
        max_size = tuple(max_size)
    image = tensors[0]
    return F.pad(image, [0, max_size[-1] - image.shape[-1], 0, max_size[-2] - image.shape[-2]])


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 4, stride=4)

    def forward(self, image):
        return self.conv(padded([image], 8))


def make_model():
    torch.manual_seed(0)
    return Backbone()


def example_inputs():
    return (torch.randn(3, 20, 27),)


def probe_inputs():
    return [(torch.randn(3, 33, 9),), (torch.randn(3, 7, 41),)]
