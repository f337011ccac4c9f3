"""mmdet YOLOXHead test-time post-processing (the "fix yolox to onnx" PR): get_bboxes decodes all priors,
then loops `for img_id in range(num_imgs)` and calls `_bboxes_nms`, which filters with a score mask and
returns early `if labels.numel() == 0`, else runs batched_nms; the PR reworks this per-image/empty-exit
path because the exported YOLOX does not follow it (batch / dynamic shape).

Source: https://github.com/open-mmlab/mmdetection/pull/6042
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-31"


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def nms(boxes, scores, iou_thr):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        iou = box_iou(boxes[i:i + 1], boxes[order[1:]])[0]
        order = order[1:][iou <= iou_thr]
    return torch.stack(keep)


def batched_nms(boxes, scores, idxs, iou_thr):
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + 1)
    keep = nms(boxes + offsets[:, None], scores, iou_thr)
    return torch.cat([boxes[keep], scores[keep, None]], -1), keep


class YOLOXHead(nn.Module):
    def __init__(self, num_classes=3, strides=(8, 16, 32), score_thr=0.3, iou_thr=0.65):
        super().__init__()
        self.strides = strides
        self.cls_out_channels = num_classes
        self.score_thr, self.iou_thr = score_thr, iou_thr
        self.stems = nn.ModuleList(nn.Conv2d(3, 8, 3, stride=s, padding=1) for s in strides)
        self.multi_level_conv_cls = nn.ModuleList(nn.Conv2d(8, num_classes, 1) for _ in strides)
        self.multi_level_conv_reg = nn.ModuleList(nn.Conv2d(8, 4, 1) for _ in strides)
        self.multi_level_conv_obj = nn.ModuleList(nn.Conv2d(8, 1, 1) for _ in strides)

    def grid_priors(self, featmap_sizes, device):
        priors = []
        for (h, w), s in zip(featmap_sizes, self.strides):
            yy, xx = torch.meshgrid(torch.arange(h, device=device) * s, torch.arange(w, device=device) * s,
                                    indexing="ij")
            st = torch.full_like(xx, s)
            priors.append(torch.stack([xx, yy, st, st], -1).reshape(-1, 4).float())
        return priors

    def _bbox_decode(self, priors, bbox_preds):
        xys = (bbox_preds[..., :2] * priors[:, 2:]) + priors[:, :2]
        whs = bbox_preds[..., 2:].exp() * priors[:, 2:]
        return torch.cat([xys - whs / 2, xys + whs / 2], -1)

    def _bboxes_nms(self, cls_scores, bboxes, score_factor):
        max_scores, labels = torch.max(cls_scores, 1)
        valid_mask = score_factor * max_scores >= self.score_thr
        bboxes = bboxes[valid_mask]
        scores = max_scores[valid_mask] * score_factor[valid_mask]
        labels = labels[valid_mask]
        if labels.numel() == 0:
            return bboxes, labels
        else:
            dets, keep = batched_nms(bboxes, scores, labels, self.iou_thr)
            return dets, labels[keep]

    def forward(self, img):
        feats = [stem(img) for stem in self.stems]
        cls_scores = [c(f) for c, f in zip(self.multi_level_conv_cls, feats)]
        bbox_preds = [r(f) for r, f in zip(self.multi_level_conv_reg, feats)]
        objectnesses = [o(f) for o, f in zip(self.multi_level_conv_obj, feats)]
        num_imgs = img.shape[0]
        featmap_sizes = [cls_score.shape[2:] for cls_score in cls_scores]
        mlvl_priors = self.grid_priors(featmap_sizes, img.device)
        flatten_cls_scores = torch.cat([c.permute(0, 2, 3, 1).reshape(num_imgs, -1, self.cls_out_channels)
                                        for c in cls_scores], dim=1).sigmoid()
        flatten_bbox_preds = torch.cat([b.permute(0, 2, 3, 1).reshape(num_imgs, -1, 4) for b in bbox_preds], dim=1)
        flatten_objectness = torch.cat([o.permute(0, 2, 3, 1).reshape(num_imgs, -1) for o in objectnesses],
                                       dim=1).sigmoid()
        flatten_priors = torch.cat(mlvl_priors)
        flatten_bboxes = self._bbox_decode(flatten_priors, flatten_bbox_preds)
        result_list = []
        for img_id in range(num_imgs):
            cls_scores = flatten_cls_scores[img_id]
            score_factor = flatten_objectness[img_id]
            bboxes = flatten_bboxes[img_id]
            result_list.append(self._bboxes_nms(cls_scores, bboxes, score_factor))
        return result_list[0]


def make_model():
    return YOLOXHead()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 64),), (torch.randn(1, 3, 64, 128),)]


def probe_inputs():
    return other_inputs()
