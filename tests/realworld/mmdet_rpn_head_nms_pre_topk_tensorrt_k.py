"""mmdetection 2.x RPNHead proposal selection as modified in the report: to get a TensorRT-friendly TopK (the
`scores.sort(descending=True)` version exports a TopK whose K is not an initializer), the user replaced the sort by
`torch.topk(scores, k=cfg.nms_pre, dim=0)` inside `if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:`, noting
"(!! not onnx exportable)". The branch on the number of anchors of each level is decided by the export image size
while K is the constant nms_pre. (Anchors, head and delta decoding kept small; the mmcv batched NMS is left out.)

Source: https://github.com/open-mmlab/mmdeploy/issues/2149
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-40"


class ConfigDict(dict):
    def __getattr__(self, name):
        return self[name]


class AnchorGenerator:
    def __init__(self, strides=(8, 16, 32), ratios=(0.5, 1.0, 2.0), scales=(8,)):
        self.strides = strides
        self.base_anchors = []
        for stride in strides:
            ws, hs = [], []
            for r in ratios:
                for s in scales:
                    ws.append(stride * s / math.sqrt(r))
                    hs.append(stride * s * math.sqrt(r))
            w, h = torch.tensor(ws), torch.tensor(hs)
            self.base_anchors.append(torch.stack([-0.5 * w, -0.5 * h, 0.5 * w, 0.5 * h], dim=-1))

    def single_level_grid_anchors(self, base_anchors, featmap_size, stride):
        feat_h, feat_w = featmap_size
        shift_x = torch.arange(0, feat_w) * stride
        shift_y = torch.arange(0, feat_h) * stride
        shift_xx = shift_x.repeat(feat_h)
        shift_yy = shift_y.view(-1, 1).repeat(1, feat_w).view(-1)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1).type_as(base_anchors)
        all_anchors = base_anchors[None, :, :] + shifts[:, None, :]
        return all_anchors.view(-1, 4)

    def grid_anchors(self, featmap_sizes):
        return [self.single_level_grid_anchors(self.base_anchors[i], featmap_sizes[i], self.strides[i])
                for i in range(len(featmap_sizes))]


def delta2bbox(rois, deltas, wh_ratio_clip=16 / 1000):
    dx, dy, dw, dh = deltas.unbind(-1)
    max_ratio = abs(math.log(wh_ratio_clip))
    dw = dw.clamp(min=-max_ratio, max=max_ratio)
    dh = dh.clamp(min=-max_ratio, max=max_ratio)
    px = (rois[:, 0] + rois[:, 2]) * 0.5
    py = (rois[:, 1] + rois[:, 3]) * 0.5
    pw = rois[:, 2] - rois[:, 0]
    ph = rois[:, 3] - rois[:, 1]
    gw, gh = pw * dw.exp(), ph * dh.exp()
    gx, gy = px + pw * dx, py + ph * dy
    return torch.stack([gx - gw * 0.5, gy - gh * 0.5, gx + gw * 0.5, gy + gh * 0.5], dim=-1)


class RPNHead(nn.Module):
    def __init__(self, in_channels=8, num_anchors=3):
        super().__init__()
        self.stem = nn.Conv2d(3, in_channels, 3, stride=8, padding=1)
        self.down = nn.ModuleList([nn.Conv2d(in_channels, in_channels, 3, stride=2, padding=1) for _ in range(2)])
        self.rpn_conv = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.rpn_cls = nn.Conv2d(in_channels, num_anchors, 1)
        self.rpn_reg = nn.Conv2d(in_channels, num_anchors * 4, 1)
        self.anchor_generator = AnchorGenerator()
        self.use_sigmoid_cls = True
        self.test_cfg = ConfigDict(nms_pre=60, max_per_img=100)

    def _get_bboxes_single(self, cls_scores, bbox_preds, mlvl_anchors, cfg=None):
        cfg = self.test_cfg if cfg is None else cfg
        mlvl_scores = []
        mlvl_bbox_preds = []
        mlvl_valid_anchors = []
        for idx in range(len(cls_scores)):
            rpn_cls_score = cls_scores[idx]
            rpn_bbox_pred = bbox_preds[idx]
            assert rpn_cls_score.size()[-2:] == rpn_bbox_pred.size()[-2:]
            rpn_cls_score = rpn_cls_score.permute(1, 2, 0)
            if self.use_sigmoid_cls:
                rpn_cls_score = rpn_cls_score.reshape(-1)
                scores = rpn_cls_score.sigmoid()
            else:
                rpn_cls_score = rpn_cls_score.reshape(-1, 2)
                scores = rpn_cls_score.softmax(dim=1)[:, 0]
            rpn_bbox_pred = rpn_bbox_pred.permute(1, 2, 0).reshape(-1, 4)
            anchors = mlvl_anchors[idx]
            if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:
                # sort is faster than topk
                # ranked_scores, rank_inds = scores.sort(descending=True)
                # topk_inds = rank_inds[:cfg.nms_pre]
                # scores = ranked_scores[:cfg.nms_pre]
                # rpn_bbox_pred = rpn_bbox_pred[topk_inds, :]
                # anchors = anchors[topk_inds, :]

                # for TensorRT-friendly (!! not onnx exportable)
                ranked_scores, rank_inds = torch.topk(scores, k=cfg.nms_pre, dim=0)
                topk_inds = rank_inds[:cfg.nms_pre]
                scores = ranked_scores[:cfg.nms_pre]
                rpn_bbox_pred = rpn_bbox_pred[topk_inds, :]
                anchors = anchors[topk_inds, :]
            mlvl_scores.append(scores)
            mlvl_bbox_preds.append(rpn_bbox_pred)
            mlvl_valid_anchors.append(anchors)

        scores = torch.cat(mlvl_scores)
        anchors = torch.cat(mlvl_valid_anchors)
        rpn_bbox_pred = torch.cat(mlvl_bbox_preds)
        proposals = delta2bbox(anchors, rpn_bbox_pred)
        return proposals, scores

    def forward(self, img):
        x = torch.relu(self.stem(img))
        feats = [x]
        for conv in self.down:
            x = torch.relu(conv(x))
            feats.append(x)
        cls_scores, bbox_preds = [], []
        for feat in feats:
            t = torch.relu(self.rpn_conv(feat))
            cls_scores.append(self.rpn_cls(t))
            bbox_preds.append(self.rpn_reg(t))
        featmap_sizes = [featmap.size()[-2:] for featmap in cls_scores]
        mlvl_anchors = self.anchor_generator.grid_anchors(featmap_sizes)
        return self._get_bboxes_single([c[0] for c in cls_scores], [b[0] for b in bbox_preds], mlvl_anchors)


def make_model():
    return RPNHead().eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 128),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 64),), (torch.randn(1, 3, 160, 192),)]


def probe_inputs():
    return other_inputs()
