"""detectron2 ROIPooler (multi-level FPN pooling) scatters each level's pooled boxes into the output with
advanced-index assignment `output[inds] = pooler(x[level], pooler_fmt_boxes_level)`; the commit "fix tracing for
pooler with single-box levels" says the trace does not generalize when some level has only one box at trace time
(pytorch/pytorch#49852) and switches to `output.index_put_((inds,), ...)`.

Source: https://github.com/facebookresearch/detectron2/commit/59425b93ee6385d3f5e5c5e8203475ac42ef68af
"""
import math
from typing import List

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"boxes": {0: "num_boxes"}}
BLIND = "domains-55"


def cat(tensors: List[torch.Tensor], dim: int = 0):
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def nonzero_tuple(x):
    """
    A 'as_tuple=True' version of torch.nonzero to support torchscript.
    because of https://github.com/pytorch/pytorch/issues/38718
    """
    if torch.jit.is_scripting():
        if x.dim() == 0:
            return x.unsqueeze(0).nonzero().unbind(1)
        return x.nonzero().unbind(1)
    else:
        return x.nonzero(as_tuple=True)


class Boxes:
    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor

    def area(self) -> torch.Tensor:
        box = self.tensor
        return (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])


class ROIAlign(nn.Module):
    """Stand-in for detectron2's ROIAlign (aligned=True): bilinear sampling of one point per bin."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=True):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input, rois):
        offset = 0.5 if self.aligned else 0.0
        H, W = input.shape[-2:]
        ph, pw = self.output_size
        x0 = rois[:, 1] * self.spatial_scale - offset
        y0 = rois[:, 2] * self.spatial_scale - offset
        x1 = rois[:, 3] * self.spatial_scale - offset
        y1 = rois[:, 4] * self.spatial_scale - offset
        tx = (torch.arange(pw, dtype=input.dtype) + 0.5) / pw
        ty = (torch.arange(ph, dtype=input.dtype) + 0.5) / ph
        gx = x0[:, None] + (x1 - x0)[:, None] * tx[None, :]
        gy = y0[:, None] + (y1 - y0)[:, None] * ty[None, :]
        gx = (gx + 0.5) / W * 2 - 1
        gy = (gy + 0.5) / H * 2 - 1
        grid = torch.stack([gx[:, None, :].expand(-1, ph, -1), gy[:, :, None].expand(-1, -1, pw)], dim=-1)
        feats = input[rois[:, 0].long()]
        return F.grid_sample(feats, grid, mode="bilinear", align_corners=False)


def assign_boxes_to_levels(box_lists: List[Boxes], min_level: int, max_level: int,
                           canonical_box_size: int, canonical_level: int):
    box_sizes = torch.sqrt(cat([boxes.area() for boxes in box_lists]))
    # Eqn.(1) in FPN paper
    level_assignments = torch.floor(canonical_level + torch.log2(box_sizes / canonical_box_size + 1e-8))
    # clamp level to (min, max), in case the box size is too large or too small
    # for the available feature maps
    level_assignments = torch.clamp(level_assignments, min=min_level, max=max_level)
    return level_assignments.to(torch.int64) - min_level


def _fmt_box_list(box_tensor, batch_index: int):
    repeated_index = torch.full_like(
        box_tensor[:, :1], batch_index, dtype=box_tensor.dtype, device=box_tensor.device
    )
    return cat((repeated_index, box_tensor), dim=1)


def convert_boxes_to_pooler_format(box_lists: List[Boxes]):
    pooler_fmt_boxes = cat(
        [_fmt_box_list(box_list.tensor, i) for i, box_list in enumerate(box_lists)], dim=0
    )
    return pooler_fmt_boxes


class ROIPooler(nn.Module):
    def __init__(self, output_size, scales, sampling_ratio, pooler_type="ROIAlignV2",
                 canonical_box_size=224, canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.output_size = output_size
        self.level_poolers = nn.ModuleList(
            ROIAlign(output_size, spatial_scale=scale, sampling_ratio=sampling_ratio, aligned=True)
            for scale in scales
        )
        min_level = -(math.log2(scales[0]))
        max_level = -(math.log2(scales[-1]))
        self.min_level = int(min_level)
        self.max_level = int(max_level)
        self.canonical_level = canonical_level
        self.canonical_box_size = canonical_box_size

    def forward(self, x: List[torch.Tensor], box_lists: List[Boxes]):
        num_level_assignments = len(self.level_poolers)

        pooler_fmt_boxes = convert_boxes_to_pooler_format(box_lists)

        if num_level_assignments == 1:
            return self.level_poolers[0](x[0], pooler_fmt_boxes)

        level_assignments = assign_boxes_to_levels(
            box_lists, self.min_level, self.max_level, self.canonical_box_size, self.canonical_level
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
    """FPN features (p2, p3) + one image's proposals -> pooled box features -> box head.

    The example has a single proposal on the p3 level (a common case for a few large objects)."""

    def __init__(self):
        super().__init__()
        self.pooler = ROIPooler(output_size=7, scales=(1.0 / 4, 1.0 / 8), sampling_ratio=0)
        self.fc = nn.Linear(8 * 7 * 7, 32)

    def forward(self, p2, p3, boxes):
        box_features = self.pooler([p2, p3], [Boxes(boxes)])
        return torch.relu(self.fc(box_features.flatten(1)))


def _proposals(n_small, n_large, seed):
    g = torch.Generator().manual_seed(seed)
    sizes = torch.cat([torch.full((n_small,), 60.0), torch.full((n_large,), 130.0)])
    sizes = sizes + torch.rand(n_small + n_large, generator=g) * 20
    ctr = 80 + torch.rand(n_small + n_large, 2, generator=g) * 96
    return torch.cat([ctr - sizes[:, None] / 2, ctr + sizes[:, None] / 2], dim=1)


def make_model():
    return BoxHeadPooling().eval()


def example_inputs():
    return (torch.randn(1, 8, 64, 64), torch.randn(1, 8, 32, 32), _proposals(4, 1, 0))


def other_inputs():
    return [
        (torch.randn(1, 8, 64, 64), torch.randn(1, 8, 32, 32), _proposals(6, 3, 1)),
        (torch.randn(1, 8, 64, 64), torch.randn(1, 8, 32, 32), _proposals(2, 2, 2)),
    ]


def probe_inputs():
    return other_inputs()
