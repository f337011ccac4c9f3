"""torchvision Faster R-CNN box decoding under torch.export with dynamic H/W: `BoxCoder.decode` sums the per-image
proposal counts (`box_sum += val` over `[b.size(0) for b in boxes]`) and branches `if box_sum > 0:` before
`rel_codes.reshape(box_sum, -1)`; the proposals come out of score filtering, so the count is data-dependent and the
PR reports the data-dependent guard and the `-1` reshape ambiguity it has to work around.
(RPN reduced to a score filter on given proposals; the two-layer box head to one linear predictor.)

Source: https://github.com/pytorch/vision/pull/9395
"""
import math
from typing import List, Tuple

import torch
from torch import nn, Tensor

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"proposals": {0: "num_anchors"}, "objectness": {0: "num_anchors"}, "box_features": {0: "num_anchors"}}
BLIND = "domains-28"


class BoxCoder:
    """
    This class encodes and decodes a set of bounding boxes into
    the representation used for training the regressors.
    """

    def __init__(
        self, weights: Tuple[float, float, float, float], bbox_xform_clip: float = math.log(1000.0 / 16)
    ) -> None:
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode(self, rel_codes: Tensor, boxes: List[Tensor]) -> Tensor:
        torch._assert(
            isinstance(boxes, (list, tuple)),
            "This function expects boxes of type list or tuple.",
        )
        torch._assert(
            isinstance(rel_codes, torch.Tensor),
            "This function expects rel_codes of type torch.Tensor.",
        )
        boxes_per_image = [b.size(0) for b in boxes]
        concat_boxes = torch.cat(boxes, dim=0)
        box_sum = 0
        for val in boxes_per_image:
            box_sum += val
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, concat_boxes)
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        boxes = boxes.to(rel_codes.dtype)

        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights

        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = rel_codes[:, 2::4] / ww
        dh = rel_codes[:, 3::4] / wh

        # Prevent sending too large values into torch.exp()
        dw = torch.clamp(dw, max=self.bbox_xform_clip)
        dh = torch.clamp(dh, max=self.bbox_xform_clip)

        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]

        # Distance from center to box's corner.
        c_to_c_h = torch.tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
        c_to_c_w = torch.tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w

        pred_boxes1 = pred_ctr_x - c_to_c_w
        pred_boxes2 = pred_ctr_y - c_to_c_h
        pred_boxes3 = pred_ctr_x + c_to_c_w
        pred_boxes4 = pred_ctr_y + c_to_c_h
        pred_boxes = torch.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=2).flatten(1)
        return pred_boxes


class RoIHeadsDecode(nn.Module):
    def __init__(self, in_channels=32, num_classes=5, score_thresh=0.4):
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, num_classes * 4)
        self.box_coder = BoxCoder((10.0, 10.0, 5.0, 5.0))
        self.score_thresh = score_thresh

    def forward(self, proposals, objectness, box_features):
        # RPN filter_proposals: drop low-scoring proposals
        keep = torch.where(torch.sigmoid(objectness) >= self.score_thresh)[0]
        proposals, box_features = proposals[keep], box_features[keep]

        class_logits = self.cls_score(box_features)
        box_regression = self.bbox_pred(box_features)
        pred_boxes = self.box_coder.decode(box_regression, [proposals])
        pred_scores = torch.softmax(class_logits, -1)
        return pred_boxes, pred_scores


def _proposals(n):
    xy = torch.rand(n, 2) * 200
    return torch.cat([xy, xy + torch.rand(n, 2) * 60 + 4], dim=1)


def make_model():
    return RoIHeadsDecode().eval()


def example_inputs():
    return (_proposals(60), torch.randn(60), torch.randn(60, 32))


def other_inputs():
    return [(_proposals(90), torch.randn(90), torch.randn(90, 32)),
            (_proposals(35), torch.randn(35), torch.randn(35, 32))]


def probe_inputs():
    return other_inputs()
