"""torchvision SSDlite320-MobileNetV3 postprocess_detections: per class it keeps `score > score_thresh`,
then `num_topk = min(self.topk_candidates, score.size(0))` and `score.topk(num_topk)`; the exported ONNX
TopK keeps the K of the export input, so onnxruntime fails on inputs (e.g. all zeros) where fewer
boxes pass the threshold than K ("TopK node ... may be invalid").

Source: https://github.com/pytorch/pytorch/issues/71695
"""
import math
from typing import Dict, List

import torch
from torch import nn, Tensor
from torch.nn import functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"cls_logits": {1: "anchors"}, "bbox_regression": {1: "anchors"}, "anchors": {0: "anchors"}}
BLIND = "domains-13"


def clip_boxes_to_image(boxes: Tensor, size) -> Tensor:
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = size
    boxes_x = boxes_x.clamp(min=0, max=width)
    boxes_y = boxes_y.clamp(min=0, max=height)
    clipped_boxes = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped_boxes.reshape(boxes.shape)


class BoxCoder:
    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode_single(self, rel_codes: Tensor, boxes: Tensor) -> Tensor:
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = torch.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]
        x1 = pred_ctr_x - 0.5 * pred_w
        y1 = pred_ctr_y - 0.5 * pred_h
        x2 = pred_ctr_x + 0.5 * pred_w
        y2 = pred_ctr_y + 0.5 * pred_h
        return torch.stack((x1, y1, x2, y2), dim=2).flatten(1)


class SSDPostprocess(nn.Module):
    def __init__(self, score_thresh=0.3, topk_candidates=20, image_size=(320, 320)):
        super().__init__()
        self.box_coder = BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        self.score_thresh = score_thresh
        self.topk_candidates = topk_candidates
        self.image_size = image_size

    def postprocess_detections(self, head_outputs: Dict[str, Tensor], image_anchors: List[Tensor], image_shapes):
        bbox_regression = head_outputs['bbox_regression']
        pred_scores = F.softmax(head_outputs['cls_logits'], dim=-1)

        num_classes = pred_scores.size(-1)
        device = pred_scores.device

        detections: List[Dict[str, Tensor]] = []

        for boxes, scores, anchors, image_shape in zip(bbox_regression, pred_scores, image_anchors, image_shapes):
            boxes = self.box_coder.decode_single(boxes, anchors)
            boxes = clip_boxes_to_image(boxes, image_shape)

            image_boxes = []
            image_scores = []
            image_labels = []
            for label in range(1, num_classes):
                score = scores[:, label]

                keep_idxs = score > self.score_thresh
                score = score[keep_idxs]
                box = boxes[keep_idxs]

                # keep only topk scoring predictions
                num_topk = min(self.topk_candidates, score.size(0))
                score, idxs = score.topk(num_topk)
                box = box[idxs]

                image_boxes.append(box)
                image_scores.append(score)
                image_labels.append(torch.full_like(score, fill_value=label, dtype=torch.int64, device=device))

            image_boxes = torch.cat(image_boxes, dim=0)
            image_scores = torch.cat(image_scores, dim=0)
            image_labels = torch.cat(image_labels, dim=0)
            detections.append({'boxes': image_boxes, 'scores': image_scores, 'labels': image_labels})
        return detections

    def forward(self, cls_logits, bbox_regression, anchors):
        head_outputs = {'cls_logits': cls_logits, 'bbox_regression': bbox_regression}
        image_anchors = [anchors] * cls_logits.shape[0]
        image_shapes = [self.image_size] * cls_logits.shape[0]
        det = self.postprocess_detections(head_outputs, image_anchors, image_shapes)[0]
        return det['boxes'], det['scores'], det['labels']


def _inputs(num_anchors, seed, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(num_anchors, 2, generator=g) * 280
    anchors = torch.cat([xy, xy + 40], dim=1)
    return (torch.randn(1, num_anchors, 4, generator=g) * scale,
            torch.randn(1, num_anchors, 4, generator=g) * 0.1,
            anchors)


def make_model():
    return SSDPostprocess()


def example_inputs():
    return _inputs(120, 0)


def other_inputs():
    return [_inputs(150, 1), _inputs(16, 2), (torch.zeros(1, 90, 4),) + _inputs(90, 3)[1:]]


def probe_inputs():
    return other_inputs()
