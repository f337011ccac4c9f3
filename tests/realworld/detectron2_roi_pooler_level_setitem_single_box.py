"""detectron2 multi-level ROIPooler: every box is assigned an FPN level and the pooled features of each level
are written back with `output[inds] = pooler(x[level], pooler_fmt_boxes_level)`. When, at trace time, one
level holds a single box, the traced advanced-indexing assignment reshapes the right-hand side to a fixed
shape, so the traced/exported pooler "does not generalize if certain level has only one box" (detectron2
switched to `output.index_put_((inds,), ...)`). The torchvision ROIAlign is replaced by a few lines of
grid_sample doing the same bilinear sampling.

Source: https://github.com/pytorch/pytorch/issues/49852
"""
import math
from typing import List

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"boxes": {0: "num_boxes"}}
BLIND = "domains-32"


def nonzero_tuple(x):
    return x.nonzero().unbind(1)


def assign_boxes_to_levels(box_tensor, min_level: int, max_level: int,
                           canonical_box_size: int, canonical_level: int):
    area = (box_tensor[:, 2] - box_tensor[:, 0]) * (box_tensor[:, 3] - box_tensor[:, 1])
    box_sizes = torch.sqrt(area)
    level_assignments = torch.floor(
        canonical_level + torch.log2(box_sizes / canonical_box_size + 1e-8)
    )
    level_assignments = torch.clamp(level_assignments, min=min_level, max=max_level)
    return level_assignments.to(torch.int64) - min_level


class SimpleROIAlign(nn.Module):
    """ROIAlign(aligned=True, sampling_ratio=1) on a batch-1 feature map, with grid_sample."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, feature, rois):
        H, W = feature.shape[-2:]
        boxes = rois[:, 1:] * self.spatial_scale - 0.5
        steps = (torch.arange(self.output_size, dtype=feature.dtype) + 0.5) / self.output_size
        xs = boxes[:, 0:1] + (boxes[:, 2:3] - boxes[:, 0:1]) * steps  # M x S
        ys = boxes[:, 1:2] + (boxes[:, 3:4] - boxes[:, 1:2]) * steps
        gx = (xs + 0.5) / W * 2 - 1
        gy = (ys + 0.5) / H * 2 - 1
        grid = torch.stack(torch.broadcast_tensors(gx[:, None, :], gy[:, :, None]), dim=-1)
        feat = feature.expand(rois.shape[0], -1, -1, -1)
        return F.grid_sample(feat, grid, align_corners=False)


class ROIPooler(nn.Module):
    def __init__(self, output_size=7, scales=(1.0 / 8, 1.0 / 16), canonical_box_size=64,
                 canonical_level=3):
        super().__init__()
        self.output_size = (output_size, output_size)
        self.level_poolers = nn.ModuleList(SimpleROIAlign(output_size, s) for s in scales)
        self.min_level = int(-(math.log2(scales[0])))
        self.max_level = int(-(math.log2(scales[-1])))
        self.canonical_box_size = canonical_box_size
        self.canonical_level = canonical_level

    def forward(self, x: List[torch.Tensor], boxes):
        pooler_fmt_boxes = torch.cat((torch.full_like(boxes[:, :1], 0), boxes), dim=1)
        level_assignments = assign_boxes_to_levels(
            boxes, self.min_level, self.max_level, self.canonical_box_size, self.canonical_level
        )

        num_boxes = pooler_fmt_boxes.size(0)
        num_channels = x[0].shape[1]
        output_size = self.output_size[0]

        dtype, device = x[0].dtype, x[0].device
        output = torch.zeros(
            (num_boxes, num_channels, output_size, output_size), dtype=dtype, device=device
        )

        for level, pooler in enumerate(self.level_poolers):
            inds = nonzero_tuple(level_assignments == level)[0]
            pooler_fmt_boxes_level = pooler_fmt_boxes[inds]
            output[inds] = pooler(x[level], pooler_fmt_boxes_level)

        return output


class BoxHeadPooling(nn.Module):
    def __init__(self):
        super().__init__()
        self.pooler = ROIPooler()

    def forward(self, p3, p4, boxes):
        return self.pooler([p3, p4], boxes)


def make_model():
    return BoxHeadPooling().eval()


def _boxes(n_small, n_large, size=512.0):
    xy = torch.rand(n_small, 2) * size * 0.7
    small = torch.cat([xy, xy + 8 + torch.rand(n_small, 2) * 40], dim=1)
    xy = torch.rand(n_large, 2) * size * 0.3
    large = torch.cat([xy, xy + 200 + torch.rand(n_large, 2) * 100], dim=1)
    return torch.cat([small, large], dim=0)


def example_inputs():
    # one level holds exactly one box, as in the report
    return (torch.randn(1, 4, 64, 64), torch.randn(1, 4, 32, 32), _boxes(9, 1))


def other_inputs():
    return [(torch.randn(1, 4, 64, 64), torch.randn(1, 4, 32, 32), _boxes(12, 4)),
            (torch.randn(1, 4, 64, 64), torch.randn(1, 4, 32, 32), _boxes(3, 2))]


def probe_inputs():
    return other_inputs()
