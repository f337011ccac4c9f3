"""Summed-area table (integral image) of a uint8 occupancy mask, built with `mask.cumsum(-1).cumsum(-2)`
and used to count occupied pixels in every k x k window. With no `dtype=`, torch accumulates an
integral/bool cumsum in int64. The report: the converter passed `dtype=None` through, so the running
sum kept the uint8 input dtype and wrapped (`uint8 [200, 100, 50].cumsum(1)` gave `[200, 44, 94]`).

Source: https://github.com/apache/tvm/pull/20374
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mask": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-32"


class WindowOccupancy(nn.Module):
    def __init__(self, k=4):
        super().__init__()
        self.k = k

    def forward(self, mask):
        # mask: uint8 [B, 1, H, W], 0 = free, 255 = occupied (as read from an image)
        occ = mask // 255
        sat = occ.cumsum(-1).cumsum(-2)  # int64 summed-area table
        sat = F.pad(sat, (1, 0, 1, 0))
        k = self.k
        counts = sat[..., k:, k:] - sat[..., :-k, k:] - sat[..., k:, :-k] + sat[..., :-k, :-k]
        return sat, counts


def make_model():
    return WindowOccupancy().eval()


def _mask(b, h, w):
    return (torch.rand(b, 1, h, w) > 0.3).to(torch.uint8) * 255


def example_inputs():
    return (_mask(2, 24, 32),)


def other_inputs():
    return [(_mask(3, 40, 20),), (_mask(1, 17, 45),)]


def probe_inputs():
    return other_inputs()
