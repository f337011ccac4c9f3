"""Panoptic FPN (detectron2 code vendored in tt-forge-models): the ROI pooler front end builds
`sizes = shapes_to_tensor([x.__len__() for x in box_lists])` and `_convert_boxes_to_pooler_format` prepends the
image index with `torch.repeat_interleave(torch.arange(len(sizes)), sizes)`; under torch.compile the sizes became a
tensor constant and `aten.repeat_interleave.Tensor` raised DynamicOutputShapeException, so tt-forge-models patched
it to a cumsum + searchsorted form.

Source: https://github.com/tenstorrent/tt-forge-models/pull/401
"""
from typing import List, Optional

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"features": {2: "height", 3: "width"}, "proposal_boxes": {0: "num_proposals"}}
BLIND = "domains-54"


def cat(tensors: List[torch.Tensor], dim: int = 0):
    """Efficient version of torch.cat that avoids a copy if there is only a single element in a list."""
    assert isinstance(tensors, (list, tuple))
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def shapes_to_tensor(x: List[int], device: Optional[torch.device] = None) -> torch.Tensor:
    if torch.jit.is_scripting():
        return torch.as_tensor(x, device=device)
    if torch.jit.is_tracing():
        assert all([isinstance(t, torch.Tensor) for t in x]), "Shape should be tensor during tracing!"
        # as_tensor should not be used in tracing because it records a constant
        ret = torch.stack(x)
        if ret.device != device:  # avoid recording a hard-coded device if not necessary
            ret = ret.to(device=device)
        return ret
    return torch.as_tensor(x, device=device)


class Boxes:
    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor

    def __len__(self) -> int:
        return self.tensor.shape[0]


# script the module to avoid hardcoded device type
@torch.jit.script_if_tracing
def _convert_boxes_to_pooler_format(boxes: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
    sizes = sizes.to(device=boxes.device)
    indices = torch.repeat_interleave(
        torch.arange(len(sizes), dtype=boxes.dtype, device=boxes.device), sizes
    )
    return cat([indices[:, None], boxes], dim=1)


def convert_boxes_to_pooler_format(box_lists: List[Boxes]):
    boxes = torch.cat([x.tensor for x in box_lists], dim=0)
    # __len__ returns Tensor in tracing.
    sizes = shapes_to_tensor([x.__len__() for x in box_lists])
    return _convert_boxes_to_pooler_format(boxes, sizes)


class BoxHead(nn.Module):
    """ROI pooler + box head. A center-point grid_sample stands in for torchvision's ROIAlign."""

    def __init__(self, channels=8, stride=8, num_classes=5):
        super().__init__()
        self.stride = stride
        self.fc = nn.Linear(channels, 16)
        self.cls_score = nn.Linear(16, num_classes + 1)
        self.bbox_pred = nn.Linear(16, num_classes * 4)

    def forward(self, features, proposal_boxes):
        box_lists = [Boxes(proposal_boxes)]
        pooler_fmt_boxes = convert_boxes_to_pooler_format(box_lists)
        batch_idx = pooler_fmt_boxes[:, 0].long()
        h, w = features.shape[2] * self.stride, features.shape[3] * self.stride
        cx = (pooler_fmt_boxes[:, 1] + pooler_fmt_boxes[:, 3]) / 2 / w * 2 - 1
        cy = (pooler_fmt_boxes[:, 2] + pooler_fmt_boxes[:, 4]) / 2 / h * 2 - 1
        grid = torch.stack([cx, cy], dim=-1)[:, None, None, :]
        pooled = F.grid_sample(features[batch_idx], grid, align_corners=False).flatten(1)
        x = F.relu(self.fc(pooled))
        return self.cls_score(x), self.bbox_pred(x)


def _boxes(n, size):
    xy = torch.rand(n, 2) * size * 0.6
    return torch.cat([xy, xy + 4 + torch.rand(n, 2) * size * 0.3], dim=1)


def make_model():
    return BoxHead().eval()


def example_inputs():
    return (torch.randn(1, 8, 16, 16), _boxes(6, 128))


def other_inputs():
    return [(torch.randn(1, 8, 20, 12), _boxes(11, 96)), (torch.randn(1, 8, 8, 24), _boxes(3, 64))]


def probe_inputs():
    return other_inputs()
