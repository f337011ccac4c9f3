"""mmdet's anchor grid: `feat_h = int(h)` of a feature-map size read from a parameter
("convert Tensor to int, so that we can convert to ONNX correctly"). Statically the item's type
is not proven (a float would make dropping int() a change); the recorded run saw ints. The
legacy exporter records int() of a traced size as a constant: wrong for other image sizes."""

import torch
from torch import nn


def grid(featmap_size, stride):
    h, feat_w = featmap_size[0], featmap_size[1]
    feat_h = int(h)
    ys = torch.arange(0, feat_h) * stride
    return ys[:, None] + torch.zeros(feat_w)


class GridSize(nn.Module):
    def forward(self, x):
        return x + grid(x.shape[-2:], 8)


def example_inputs():
    return (torch.randn(2, 3, 5, 6),)


def probe_inputs():
    return [(torch.randn(1, 3, 7, 4),)]


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
