"""Control: the prototype size as `protos.shape[-2:]`.

Source: https://github.com/WongKinYiu/yolov9/pull/324
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
CONTROL = True
DYNAMIC = {"protos": {2: "h", 3: "w"}, "masks": {2: "mh", 3: "mw"}}


class Segment(nn.Module):
    def forward(self, protos, masks):
        up = F.interpolate(masks, size=protos.shape[-2:], mode="bilinear", align_corners=False)
        return (up * protos).sigmoid()


def make_model():
    return Segment()


def example_inputs():
    return (torch.randn(1, 2, 8, 8), torch.randn(1, 2, 4, 4))


def other_inputs():
    return [(torch.randn(1, 2, 12, 10), torch.randn(1, 2, 4, 4)), (torch.randn(1, 2, 6, 16), torch.randn(1, 2, 3, 8))]


def probe_inputs():
    return other_inputs()
