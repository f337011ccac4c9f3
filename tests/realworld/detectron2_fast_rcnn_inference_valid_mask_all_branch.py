"""Detectron2 Keypoint R-CNN exported with `export_model.py --export-method tracing`: the box stage's
`fast_rcnn_inference_single_image` starts with `if not valid_mask.all(): boxes = boxes[valid_mask] ...` (TracerWarning
"Converting a tensor to a Python boolean", fast_rcnn.py:138), then clips boxes to the image size and filters by score
with `nonzero`; the report's exported model gives very inaccurate results. (Box head on pooled ROI features;
batched NMS and the keypoint head left out; per-image detections returned as tensors.)

Source: https://github.com/facebookresearch/detectron2/issues/3028
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"box_features": {0: "num_rois"}, "proposals": {0: "num_rois"}, "images": {2: "height", 3: "width"}}
BLIND = "domains-28"

_DEFAULT_SCALE_CLAMP = math.log(1000.0 / 16)


class Box2BoxTransform:
    def __init__(self, weights, scale_clamp=_DEFAULT_SCALE_CLAMP):
        self.weights = weights
        self.scale_clamp = scale_clamp

    def apply_deltas(self, deltas, boxes):
        deltas = deltas.float()  # ensure fp32 for decoding precision
        boxes = boxes.to(deltas.dtype)

        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights

        wx, wy, ww, wh = self.weights
        dx = deltas[:, 0::4] / wx
        dy = deltas[:, 1::4] / wy
        dw = deltas[:, 2::4] / ww
        dh = deltas[:, 3::4] / wh

        # Prevent sending too large values into torch.exp()
        dw = torch.clamp(dw, max=self.scale_clamp)
        dh = torch.clamp(dh, max=self.scale_clamp)

        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]

        x1 = pred_ctr_x - 0.5 * pred_w
        y1 = pred_ctr_y - 0.5 * pred_h
        x2 = pred_ctr_x + 0.5 * pred_w
        y2 = pred_ctr_y + 0.5 * pred_h
        pred_boxes = torch.stack((x1, y1, x2, y2), dim=-1)
        return pred_boxes.reshape(deltas.shape)


class Boxes:
    def __init__(self, tensor):
        self.tensor = tensor

    def clip(self, box_size):
        assert torch.isfinite(self.tensor).all(), "Box tensor contains infinite or NaN!"
        h, w = box_size
        x1 = self.tensor[:, 0].clamp(min=0, max=w)
        y1 = self.tensor[:, 1].clamp(min=0, max=h)
        x2 = self.tensor[:, 2].clamp(min=0, max=w)
        y2 = self.tensor[:, 3].clamp(min=0, max=h)
        self.tensor = torch.stack((x1, y1, x2, y2), dim=-1)


def fast_rcnn_inference_single_image(boxes, scores, image_shape, score_thresh):
    valid_mask = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores).all(dim=1)
    if not valid_mask.all():
        boxes = boxes[valid_mask]
        scores = scores[valid_mask]

    scores = scores[:, :-1]
    num_bbox_reg_classes = boxes.shape[1] // 4
    # Convert to Boxes to use the `clip` function ...
    boxes = Boxes(boxes.reshape(-1, 4))
    boxes.clip(image_shape)
    boxes = boxes.tensor.view(-1, num_bbox_reg_classes, 4)  # R x C x 4

    # 1. Filter results based on detection scores. It can make NMS more efficient
    #    by filtering out low-confidence detections.
    filter_mask = scores > score_thresh  # R x K
    # R' x 2. First column contains indices of the R predictions;
    # Second column contains indices of classes.
    filter_inds = filter_mask.nonzero()
    if num_bbox_reg_classes == 1:
        boxes = boxes[filter_inds[:, 0], 0]
    else:
        boxes = boxes[filter_mask]
    scores = scores[filter_mask]
    return boxes, scores, filter_inds[:, 1]


class FastRCNNOutputLayers(nn.Module):
    def __init__(self, in_features=32, num_classes=4, score_thresh=0.3):
        super().__init__()
        self.cls_score = nn.Linear(in_features, num_classes + 1)
        self.bbox_pred = nn.Linear(in_features, num_classes * 4)
        self.box2box_transform = Box2BoxTransform(weights=(10.0, 10.0, 5.0, 5.0))
        self.test_score_thresh = score_thresh

    def forward(self, box_features, proposals, images):
        scores = self.cls_score(box_features).softmax(dim=-1)
        deltas = self.bbox_pred(box_features)
        boxes = self.box2box_transform.apply_deltas(deltas, proposals)
        image_shape = images.shape[-2:]
        return fast_rcnn_inference_single_image(boxes, scores, image_shape, self.test_score_thresh)


def _proposals(n, h, w):
    xy = torch.rand(n, 2) * torch.tensor([w * 0.7, h * 0.7])
    wh = torch.rand(n, 2) * torch.tensor([w * 0.3, h * 0.3]) + 4
    return torch.cat([xy, xy + wh], dim=1)


def make_model():
    return FastRCNNOutputLayers().eval()


def example_inputs():
    return (torch.randn(40, 32), _proposals(40, 96, 128), torch.randn(1, 3, 96, 128))


def other_inputs():
    return [(torch.randn(64, 32), _proposals(64, 160, 120), torch.randn(1, 3, 160, 120)),
            (torch.randn(25, 32), _proposals(25, 80, 200), torch.randn(1, 3, 80, 200))]


def probe_inputs():
    return other_inputs()
