"""RT-DETRv2 `DetNMSPostProcessor` (added with the NMS-based detector variant): outside deploy mode it loops
`for i in range(logits.shape[0])` over the batch, keeps `pred_scores[i] > score_threshold` by boolean
masking, runs batched NMS, slices `keep[:keep_topk]` and returns a list of per-image dicts; the PR's commit
"stripped post processor for torch exporting" deletes that loop and returns one dict of dense
labels/boxes/scores so the detector can be exported. (Detector reduced to two linear heads over query
features; torchvision's box_convert and batched_nms written out in plain torch.)

Source: https://github.com/lyuwenyu/RT-DETR/pull/616
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor

from typing import Dict

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"feats": {0: "batch"}}
BLIND = "domains-69"


def box_convert(boxes, in_fmt='cxcywh', out_fmt='xyxy'):
    # torchvision.ops.box_convert, cxcywh -> xyxy only
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)


def box_iou(boxes1, boxes2):
    area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
    area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area1[:, None] + area2 - inter)


def batched_nms(boxes, scores, idxs, iou_threshold):
    # stand-in for torchvision.ops.batched_nms: coordinate trick, then suppression by higher-scoring boxes
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + 1)
    boxes_for_nms = boxes + offsets[:, None]
    order = scores.argsort(descending=True)
    iou = box_iou(boxes_for_nms[order], boxes_for_nms[order]).triu(diagonal=1)
    keep = iou.max(dim=0)[0] <= iou_threshold
    return order[keep]


class DetNMSPostProcessor(torch.nn.Module):
    def __init__(self, \
                iou_threshold=0.01,
                score_threshold=0.1,
                keep_topk=300,
                box_fmt='cxcywh',
                logit_fmt='sigmoid',
                image_dimensions=(640,640)) -> None:
        super().__init__()
        self.iou_threshold = iou_threshold
        self.score_threshold = score_threshold
        self.keep_topk = keep_topk
        self.box_fmt = box_fmt.lower()
        self.logit_fmt = logit_fmt.lower()
        self.logit_func = getattr(F, self.logit_fmt, None)
        self.deploy_mode = False
        self.image_dimensions = image_dimensions

    def forward(self, outputs: Dict[str, Tensor], **kwargs):
        iou_threshold = kwargs.get('iou_threshold', self.iou_threshold)
        score_threshold = kwargs.get('score_threshold', self.score_threshold)
        keep_topk = kwargs.get('keep_topk', self.keep_topk)
        logits, boxes = outputs['pred_logits'], outputs['pred_boxes']
        patch_size = torch.tensor(self.image_dimensions, dtype=torch.float32).to(boxes.device)
        patch_size = patch_size.repeat(boxes.size(0), 1)  # Repeat for batch size

        pred_boxes = box_convert(boxes, in_fmt=self.box_fmt, out_fmt='xyxy')
        pred_boxes *= patch_size.repeat(1, 2).unsqueeze(1)

        values, pred_labels = torch.max(logits, dim=-1)

        if self.logit_func:
            pred_scores = self.logit_func(values)
        else:
            pred_scores = values

        # TODO for onnx export
        if self.deploy_mode:
            blobs = {
                'pred_labels': pred_labels,
                'pred_boxes': pred_boxes,
                'pred_scores': pred_scores
            }
            return blobs

        results = []
        for i in range(logits.shape[0]):
            score_keep = pred_scores[i] > score_threshold
            pred_box = pred_boxes[i][score_keep]
            pred_label = pred_labels[i][score_keep]
            pred_score = pred_scores[i][score_keep]

            keep = batched_nms(pred_box, pred_score, pred_label, iou_threshold)
            keep = keep[:keep_topk]

            blob = {
                'labels': pred_label[keep],
                'boxes': pred_box[keep],
                'scores': pred_score[keep],
            }

            results.append(blob)

        return results


class NMSDetector(nn.Module):
    """Query features -> class logits and cxcywh boxes -> DetNMSPostProcessor (as the deployed model chains them)."""

    def __init__(self, hidden_dim=32, num_classes=5):
        super().__init__()
        self.class_head = nn.Linear(hidden_dim, num_classes)
        self.box_head = nn.Linear(hidden_dim, 4)
        self.postprocessor = DetNMSPostProcessor(iou_threshold=0.5, score_threshold=0.5, keep_topk=10)

    def forward(self, feats):
        outputs = {'pred_logits': self.class_head(feats), 'pred_boxes': self.box_head(feats).sigmoid()}
        return self.postprocessor(outputs)


def make_model():
    return NMSDetector().eval()


def example_inputs():
    return (torch.randn(2, 40, 32),)


def other_inputs():
    return [(torch.randn(3, 40, 32),), (torch.randn(1, 40, 32),)]


def probe_inputs():
    return other_inputs()
