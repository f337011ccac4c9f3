"""OTX YOLO / Mask-RCNN NMS stage: scores above a threshold kept, then `[:200]`; dynamo fails with
"Could not guard on data-dependent expression u1 < 200" in `slice_forward`.

Source: https://github.com/open-edge-platform/geti/issues/5073
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"boxes": {0: "n"}, "scores": {0: "n"}}


class Post(nn.Module):
    def forward(self, boxes, scores):
        keep = scores > 0.3
        boxes, scores = boxes[keep], scores[keep]
        order = scores.argsort(descending=True)[:4]
        return boxes[order], scores[order]


def make_model():
    return Post()


def example_inputs():
    return (torch.rand(10, 4), torch.rand(10))


def other_inputs():
    return [(torch.rand(14, 4), torch.rand(14)), (torch.rand(5, 4), torch.rand(5) * 0.5)]


def probe_inputs():
    return other_inputs()
