"""detectron2 ROIPooler front end: `convert_boxes_to_pooler_format` prepends the batch index to every
proposal box with `torch.full((len(box_tensor), 1), batch_index, ...)`, then the FPN level of each box is
assigned from its area. The report: during ONNX export `len()` freezes the number of boxes, so "an ONNX
export would generate fixed sized tensors for tensors that are actually of a dynamic shape" (fixed upstream
with `torch.full_like(box_tensor[:, :1], ...)`).

Source: https://github.com/facebookresearch/detectron2/pull/2060
"""
import math
from typing import List

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"proposal_boxes": {0: "num_boxes"}}
BLIND = "domains-32"


class Boxes:
    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor

    def area(self) -> torch.Tensor:
        box = self.tensor
        return (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])


def cat(tensors: List[torch.Tensor], dim: int = 0):
    assert isinstance(tensors, (list, tuple))
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def assign_boxes_to_levels(box_lists: List[Boxes], min_level: int, max_level: int,
                           canonical_box_size: int, canonical_level: int):
    box_sizes = torch.sqrt(cat([boxes.area() for boxes in box_lists]))
    # Eqn.(1) in FPN paper
    level_assignments = torch.floor(
        canonical_level + torch.log2(box_sizes / canonical_box_size + 1e-8)
    )
    level_assignments = torch.clamp(level_assignments, min=min_level, max=max_level)
    return level_assignments.to(torch.int64) - min_level


def _fmt_box_list(box_tensor, batch_index: int):
    repeated_index = torch.full(
        (len(box_tensor), 1), batch_index, dtype=box_tensor.dtype, device=box_tensor.device
    )
    return cat((repeated_index, box_tensor), dim=1)


def convert_boxes_to_pooler_format(box_lists: List[Boxes]):
    pooler_fmt_boxes = cat(
        [_fmt_box_list(box_list.tensor, i) for i, box_list in enumerate(box_lists)], dim=0
    )
    return pooler_fmt_boxes


class ROIPoolerFrontEnd(nn.Module):
    def __init__(self, scales=(1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32), canonical_box_size=224,
                 canonical_level=4):
        super().__init__()
        self.min_level = int(-(math.log2(scales[0])))
        self.max_level = int(-(math.log2(scales[-1])))
        self.canonical_box_size = canonical_box_size
        self.canonical_level = canonical_level

    def forward(self, proposal_boxes):
        box_lists = [Boxes(proposal_boxes)]
        pooler_fmt_boxes = convert_boxes_to_pooler_format(box_lists)
        level_assignments = assign_boxes_to_levels(
            box_lists, self.min_level, self.max_level, self.canonical_box_size, self.canonical_level
        )
        return pooler_fmt_boxes, level_assignments


def make_model():
    return ROIPoolerFrontEnd().eval()


def _boxes(n, size=512.0):
    xy = torch.rand(n, 2) * size * 0.6
    wh = 8 + torch.rand(n, 2) * size * 0.4
    return torch.cat([xy, xy + wh], dim=1)


def example_inputs():
    return (_boxes(10),)


def other_inputs():
    return [(_boxes(20),), (_boxes(5),)]


def probe_inputs():
    return other_inputs()
