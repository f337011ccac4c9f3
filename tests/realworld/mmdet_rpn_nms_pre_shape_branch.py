"""mmdetection RPNHead._get_bboxes_single: per pyramid level, `if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:`
sorts the anchor scores and keeps the top `nms_pre`; the number of anchors grows with the image size, so a
model exported at one input size keeps (or skips) the truncation for every other size. The PR replaces the
branch with `torch.where(scores_shape[0] < cfg.nms_pre, ...)` to export Faster R-CNN with dynamic input shape.
(The mmcv NMS that follows is left out.)

Source: https://github.com/open-mmlab/mmdetection/pull/4726
"""
import numpy as np
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-8"


class Cfg(dict):
    __getattr__ = dict.__getitem__


def delta2bbox(rois, deltas, means=(0., 0., 0., 0.), stds=(1., 1., 1., 1.), wh_ratio_clip=16 / 1000):
    means = deltas.new_tensor(means).view(1, -1).repeat(1, deltas.size(1) // 4)
    stds = deltas.new_tensor(stds).view(1, -1).repeat(1, deltas.size(1) // 4)
    denorm_deltas = deltas * stds + means
    dx, dy = denorm_deltas[:, 0::4], denorm_deltas[:, 1::4]
    dw, dh = denorm_deltas[:, 2::4], denorm_deltas[:, 3::4]
    max_ratio = np.abs(np.log(wh_ratio_clip))
    dw = dw.clamp(min=-max_ratio, max=max_ratio)
    dh = dh.clamp(min=-max_ratio, max=max_ratio)
    px = ((rois[:, 0] + rois[:, 2]) * 0.5).unsqueeze(1).expand_as(dx)
    py = ((rois[:, 1] + rois[:, 3]) * 0.5).unsqueeze(1).expand_as(dy)
    pw = (rois[:, 2] - rois[:, 0]).unsqueeze(1).expand_as(dw)
    ph = (rois[:, 3] - rois[:, 1]).unsqueeze(1).expand_as(dh)
    gw, gh = pw * dw.exp(), ph * dh.exp()
    gx, gy = px + pw * dx, py + ph * dy
    return torch.stack([gx - gw * 0.5, gy - gh * 0.5, gx + gw * 0.5, gy + gh * 0.5], dim=-1).view(deltas.size())


class RPN(nn.Module):
    def __init__(self, strides=(8, 16), num_anchors=3, feat_channels=16):
        super().__init__()
        self.backbone = nn.ModuleList([nn.Conv2d(3, feat_channels, 3, stride=8, padding=1),
                                       nn.Conv2d(feat_channels, feat_channels, 3, stride=2, padding=1)])
        self.rpn_conv = nn.Conv2d(feat_channels, feat_channels, 3, padding=1)
        self.rpn_cls = nn.Conv2d(feat_channels, num_anchors, 1)
        self.rpn_reg = nn.Conv2d(feat_channels, num_anchors * 4, 1)
        self.strides = strides
        self.use_sigmoid_cls = True
        self.test_cfg = Cfg(nms_pre=1000)
        for i, s in enumerate(strides):
            self.register_buffer(f"base_anchors{i}", torch.tensor(
                [[-2. * s, -2. * s, 2. * s, 2. * s], [-3. * s, -1.5 * s, 3. * s, 1.5 * s], [-1.5 * s, -3. * s, 1.5 * s, 3. * s]]))

    def grid_anchors(self, featmap_size, i):
        feat_h, feat_w = featmap_size
        shift_x = torch.arange(0, feat_w) * self.strides[i]
        shift_y = torch.arange(0, feat_h) * self.strides[i]
        shift_yy, shift_xx = torch.meshgrid(shift_y, shift_x, indexing="ij")
        shift_xx, shift_yy = shift_xx.reshape(-1), shift_yy.reshape(-1)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1).float()
        return (getattr(self, f"base_anchors{i}")[None, :, :] + shifts[:, None, :]).view(-1, 4)

    def _get_bboxes_single(self, cls_scores, bbox_preds, mlvl_anchors, cfg):
        mlvl_scores, mlvl_bbox_preds, mlvl_valid_anchors = [], [], []
        for idx in range(len(cls_scores)):
            rpn_cls_score = cls_scores[idx]
            rpn_bbox_pred = bbox_preds[idx]
            assert rpn_cls_score.size()[-2:] == rpn_bbox_pred.size()[-2:]
            rpn_cls_score = rpn_cls_score.permute(1, 2, 0)
            if self.use_sigmoid_cls:
                rpn_cls_score = rpn_cls_score.reshape(-1)
                scores = rpn_cls_score.sigmoid()
            rpn_bbox_pred = rpn_bbox_pred.permute(1, 2, 0).reshape(-1, 4)
            anchors = mlvl_anchors[idx]
            if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:
                # sort is faster than topk
                # _, topk_inds = scores.topk(cfg.nms_pre)
                ranked_scores, rank_inds = scores.sort(descending=True)
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
        return torch.cat([proposals, scores[:, None]], dim=1)

    def forward(self, img):
        feats, x = [], img
        for conv in self.backbone:
            x = conv(x).relu()
            feats.append(x)
        cls_scores, bbox_preds = [], []
        for f in feats:
            t = self.rpn_conv(f).relu()
            cls_scores.append(self.rpn_cls(t))
            bbox_preds.append(self.rpn_reg(t))
        mlvl_anchors = [self.grid_anchors(cls_scores[i].shape[-2:], i) for i in range(len(feats))]
        return self._get_bboxes_single([c[0] for c in cls_scores], [b[0] for b in bbox_preds],
                                       mlvl_anchors, self.test_cfg)


def make_model():
    return RPN().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 256, 320),), (torch.randn(1, 3, 96, 128),)]


def probe_inputs():
    return other_inputs()
