"""OTX detection export: `shape = (int(inputs.shape[2]), int(inputs.shape[3]))` and
`meta_info_list = [meta_info] * len(inputs)`; both become constants in the legacy trace.

Source: https://github.com/open-edge-platform/geti/issues/3770
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"inputs": {0: "batch", 2: "h", 3: "w"}}


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, inputs):
        shape = (int(inputs.shape[2]), int(inputs.shape[3]))
        meta = torch.ones(1, 4, 1, 1)
        meta_info_list = [meta] * len(inputs)
        feats = self.backbone(inputs) * torch.cat(meta_info_list, 0)
        return F.interpolate(feats, size=shape, mode="nearest")


def make_model():
    return Detector()


def example_inputs():
    return (torch.randn(2, 3, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 3, 20, 12),), (torch.randn(1, 3, 16, 24),)]


def probe_inputs():
    return other_inputs()
