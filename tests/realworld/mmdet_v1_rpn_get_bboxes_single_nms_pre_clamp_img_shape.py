"""mmdetection v1 RPN head exported end to end (Faster R-CNN): `get_bboxes_single` keeps the top
`cfg.nms_pre` anchors only `if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre`, and `delta2bbox` clips
the decoded proposals with `clamp(min=0, max=max_shape[1] - 1)` where `max_shape` is the image shape; the PR
that adds ONNX export has to wrap `torch.topk`, `torch.arange` and `torch.clamp` to make them exportable,
because otherwise K and the clip bounds are traced as constants of the export-time image size.

Source: https://github.com/open-mmlab/mmdetection/pull/1386
"""
import numpy as np
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-38"


class Config(dict):
    __getattr__ = dict.__getitem__


def delta2bbox(rois, deltas, means=[0, 0, 0, 0], stds=[1, 1, 1, 1], max_shape=None, wh_ratio_clip=16 / 1000):
    means = deltas.new_tensor(means).repeat(1, deltas.size(1) // 4)
    stds = deltas.new_tensor(stds).repeat(1, deltas.size(1) // 4)
    denorm_deltas = deltas * stds + means
    dx = denorm_deltas[:, 0::4]
    dy = denorm_deltas[:, 1::4]
    dw = denorm_deltas[:, 2::4]
    dh = denorm_deltas[:, 3::4]
    max_ratio = np.abs(np.log(wh_ratio_clip))
    dw = dw.clamp(min=-max_ratio, max=max_ratio)
    dh = dh.clamp(min=-max_ratio, max=max_ratio)
    px = ((rois[:, 0] + rois[:, 2]) * 0.5).unsqueeze(1).expand_as(dx)
    py = ((rois[:, 1] + rois[:, 3]) * 0.5).unsqueeze(1).expand_as(dy)
    pw = (rois[:, 2] - rois[:, 0] + 1.0).unsqueeze(1).expand_as(dw)
    ph = (rois[:, 3] - rois[:, 1] + 1.0).unsqueeze(1).expand_as(dh)
    gw = pw * dw.exp()
    gh = ph * dh.exp()
    gx = torch.addcmul(px, pw, dx)  # gx = px + pw * dx
    gy = torch.addcmul(py, ph, dy)  # gy = py + ph * dy
    x1 = gx - gw * 0.5 + 0.5
    y1 = gy - gh * 0.5 + 0.5
    x2 = gx + gw * 0.5 - 0.5
    y2 = gy + gh * 0.5 - 0.5
    if max_shape is not None:
        x1 = x1.clamp(min=0, max=max_shape[1] - 1)
        y1 = y1.clamp(min=0, max=max_shape[0] - 1)
        x2 = x2.clamp(min=0, max=max_shape[1] - 1)
        y2 = y2.clamp(min=0, max=max_shape[0] - 1)
    bboxes = torch.stack([x1, y1, x2, y2], dim=-1).view_as(deltas)
    return bboxes


class AnchorGenerator(object):
    def __init__(self, base_size, scales, ratios):
        self.base_size = base_size
        self.scales = torch.Tensor(scales)
        self.ratios = torch.Tensor(ratios)
        self.base_anchors = self.gen_base_anchors()

    def gen_base_anchors(self):
        w = h = self.base_size
        x_ctr, y_ctr = 0.5 * (w - 1), 0.5 * (h - 1)
        h_ratios = torch.sqrt(self.ratios)
        w_ratios = 1 / h_ratios
        ws = (w * w_ratios[:, None] * self.scales[None, :]).view(-1)
        hs = (h * h_ratios[:, None] * self.scales[None, :]).view(-1)
        base_anchors = torch.stack(
            [x_ctr - 0.5 * (ws - 1), y_ctr - 0.5 * (hs - 1), x_ctr + 0.5 * (ws - 1), y_ctr + 0.5 * (hs - 1)],
            dim=-1).round()
        return base_anchors

    def _meshgrid(self, x, y):
        xx = x.repeat(len(y))
        yy = y.view(-1, 1).repeat(1, len(x)).view(-1)
        return xx, yy

    def grid_anchors(self, featmap_size, stride=16, device='cpu'):
        base_anchors = self.base_anchors.to(device)
        feat_h, feat_w = featmap_size
        shift_x = torch.arange(0, feat_w, device=device) * stride
        shift_y = torch.arange(0, feat_h, device=device) * stride
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1)
        shifts = shifts.type_as(base_anchors)
        all_anchors = base_anchors[None, :, :] + shifts[:, None, :]
        all_anchors = all_anchors.view(-1, 4)
        return all_anchors


class RPN(nn.Module):
    def __init__(self, feat_channels=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, feat_channels, 3, stride=4, padding=1), nn.ReLU(),
                                      nn.Conv2d(feat_channels, feat_channels, 3, stride=4, padding=1))
        self.anchor_generator = AnchorGenerator(16, [2, 4, 8], [0.5, 1.0, 2.0])
        self.num_anchors = 9
        self.rpn_conv = nn.Conv2d(feat_channels, feat_channels, 3, padding=1)
        self.rpn_cls = nn.Conv2d(feat_channels, self.num_anchors, 1)
        self.rpn_reg = nn.Conv2d(feat_channels, self.num_anchors * 4, 1)
        self.use_sigmoid_cls = True
        self.target_means = (.0, .0, .0, .0)
        self.target_stds = (1.0, 1.0, 1.0, 1.0)
        self.test_cfg = Config(nms_pre=200, min_bbox_size=0)

    def get_bboxes_single(self, cls_scores, bbox_preds, mlvl_anchors, img_shape, scale_factor, cfg, rescale=False):
        mlvl_proposals = []
        for idx in range(len(cls_scores)):
            rpn_cls_score = cls_scores[idx]
            rpn_bbox_pred = bbox_preds[idx]
            assert rpn_cls_score.size()[-2:] == rpn_bbox_pred.size()[-2:]
            anchors = mlvl_anchors[idx]
            rpn_cls_score = rpn_cls_score.permute(1, 2, 0)
            if self.use_sigmoid_cls:
                rpn_cls_score = rpn_cls_score.reshape(-1)
                scores = rpn_cls_score.sigmoid()
            rpn_bbox_pred = rpn_bbox_pred.permute(1, 2, 0).reshape(-1, 4)
            if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:
                _, topk_inds = scores.topk(cfg.nms_pre)
                rpn_bbox_pred = rpn_bbox_pred[topk_inds, :]
                anchors = anchors[topk_inds, :]
                scores = scores[topk_inds]
            proposals = delta2bbox(anchors, rpn_bbox_pred, self.target_means, self.target_stds, img_shape)
            proposals = torch.cat([proposals, scores.unsqueeze(-1)], dim=-1)
            mlvl_proposals.append(proposals)
        proposals = torch.cat(mlvl_proposals, 0)
        return proposals

    def forward(self, img):
        x = self.backbone(img)
        x = torch.relu(self.rpn_conv(x))
        cls_score, bbox_pred = self.rpn_cls(x), self.rpn_reg(x)
        img_shape = (img.shape[2], img.shape[3], 3)
        mlvl_anchors = [self.anchor_generator.grid_anchors(cls_score.size()[-2:], 16, device=img.device)]
        return self.get_bboxes_single([cls_score[0]], [bbox_pred[0]], mlvl_anchors, img_shape, 1.0, self.test_cfg)


def make_model():
    return RPN().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 128, 192),), (torch.randn(1, 3, 96, 80),)]


def probe_inputs():
    return other_inputs()
