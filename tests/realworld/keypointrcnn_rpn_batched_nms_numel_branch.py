"""torchvision keypointrcnn_resnet50_fpn with torch.export (strict=False): the RPN's filter_proposals keeps
boxes with `remove_small_boxes` and `torch.where(scores >= self.score_thresh)[0]` (a data-dependent count), then
`box_ops.batched_nms` branches on `boxes.numel() > (4000 if boxes.device.type == "cpu" else 20000) and not
torchvision._is_tracing()`; export fails with "Could not guard on data-dependent expression 4*u1 > 4000".
The compiled `torchvision.ops.nms` is replaced by a score sort (keeps every box); the rest is torchvision's code.

Source: https://github.com/pytorch/pytorch/issues/138026
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"images": {2: "height", 3: "width"}}
BLIND = "domains-15"


def nms(boxes, scores, iou_threshold):  # stand-in for torch.ops.torchvision.nms
    return scores.argsort(descending=True)


def _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold):
    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    keep = nms(boxes_for_nms, scores, iou_threshold)
    return keep


def _batched_nms_vanilla(boxes, scores, idxs, iou_threshold):
    keep_mask = torch.zeros_like(scores, dtype=torch.bool)
    for class_id in torch.unique(idxs):
        curr_indices = torch.where(idxs == class_id)[0]
        curr_keep_indices = nms(boxes[curr_indices], scores[curr_indices], iou_threshold)
        keep_mask[curr_indices[curr_keep_indices]] = True
    keep_indices = torch.where(keep_mask)[0]
    return keep_indices[scores[keep_indices].sort(descending=True)[1]]


def batched_nms(boxes, scores, idxs, iou_threshold):
    if boxes.numel() > (4000 if boxes.device.type == "cpu" else 20000) and not torch.jit.is_tracing():
        return _batched_nms_vanilla(boxes, scores, idxs, iou_threshold)
    else:
        return _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold)


def remove_small_boxes(boxes, min_size):
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    keep = torch.where(keep)[0]
    return keep


class RPN(nn.Module):
    def __init__(self, strides=(4, 8), num_anchors=3):
        super().__init__()
        self.backbone = nn.ModuleList([nn.Conv2d(3, 8, 3, stride=4, padding=1), nn.Conv2d(8, 8, 3, stride=2, padding=1)])
        self.cls_logits = nn.Conv2d(8, num_anchors, 1)
        self.bbox_pred = nn.Conv2d(8, num_anchors * 4, 1)
        self.strides = strides
        self.min_size = 1e-3
        self.score_thresh = 0.0
        self.nms_thresh = 0.7
        self.post_nms_top_n = 1000

    def forward(self, images):
        x, all_boxes, all_scores, levels = images, [], [], []
        for idx, (conv, s) in enumerate(zip(self.backbone, self.strides)):
            x = nn.functional.silu(conv(x))
            h, w = x.shape[-2:]
            ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            ctr = (torch.stack([xs, ys, xs, ys], -1).float() * s).reshape(-1, 1, 4)
            deltas = self.bbox_pred(x)[0].permute(1, 2, 0).reshape(h * w, -1, 4)
            boxes = (ctr + deltas * 4 * s).reshape(-1, 4)
            all_boxes.append(torch.cat([boxes[:, :2], boxes[:, :2] + (boxes[:, 2:] - boxes[:, :2]).abs()], 1))
            all_scores.append(self.cls_logits(x)[0].permute(1, 2, 0).reshape(-1))
            levels.append(torch.full((boxes.shape[0],), idx, dtype=torch.int64))
        boxes, scores, lvl = torch.cat(all_boxes), torch.cat(all_scores).sigmoid(), torch.cat(levels)
        keep = remove_small_boxes(boxes, self.min_size)
        boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
        keep = torch.where(scores >= self.score_thresh)[0]
        boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
        keep = batched_nms(boxes, scores, lvl, self.nms_thresh)
        keep = keep[: self.post_nms_top_n]
        boxes, scores = boxes[keep], scores[keep]
        return boxes, scores


def make_model():
    return RPN().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 80),)


def other_inputs():
    return [(torch.randn(1, 3, 48, 64),), (torch.randn(1, 3, 80, 96),)]


def probe_inputs():
    return other_inputs()
