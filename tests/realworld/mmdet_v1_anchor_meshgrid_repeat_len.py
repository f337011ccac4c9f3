"""mmdetection v1 RetinaNet exported with torch.onnx.export: `AnchorGenerator._meshgrid` builds the anchor grid with
`xx = x.repeat(len(y))` / `yy = y.view(-1, 1).repeat(1, len(x)).view(-1)` on `torch.arange(0, feat_w)` of each
feature map; the export warns "Converting a tensor to a Python index might cause the trace to be incorrect" at both
lines (anchor_generator.py:61/62), so the grid keeps the export feature-map size.
(ResNet+FPN reduced to stride-2 convs, two levels; anchor_head's _get_bboxes_single without nms_pre/NMS.)

Source: https://github.com/onnx/onnx/issues/1552
"""
import numpy as np
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-51"


class AnchorGenerator(object):
    def __init__(self, base_size, scales, ratios, scale_major=True, ctr=None):
        self.base_size = base_size
        self.scales = torch.Tensor(scales)
        self.ratios = torch.Tensor(ratios)
        self.scale_major = scale_major
        self.ctr = ctr
        self.base_anchors = self.gen_base_anchors()

    @property
    def num_base_anchors(self):
        return self.base_anchors.size(0)

    def gen_base_anchors(self):
        w = self.base_size
        h = self.base_size
        if self.ctr is None:
            x_ctr = 0.5 * (w - 1)
            y_ctr = 0.5 * (h - 1)
        else:
            x_ctr, y_ctr = self.ctr
        h_ratios = torch.sqrt(self.ratios)
        w_ratios = 1 / h_ratios
        if self.scale_major:
            ws = (w * w_ratios[:, None] * self.scales[None, :]).view(-1)
            hs = (h * h_ratios[:, None] * self.scales[None, :]).view(-1)
        else:
            ws = (w * self.scales[:, None] * w_ratios[None, :]).view(-1)
            hs = (h * self.scales[:, None] * h_ratios[None, :]).view(-1)
        base_anchors = torch.stack(
            [x_ctr - 0.5 * (ws - 1), y_ctr - 0.5 * (hs - 1),
             x_ctr + 0.5 * (ws - 1), y_ctr + 0.5 * (hs - 1)], dim=-1).round()
        return base_anchors

    def _meshgrid(self, x, y, row_major=True):
        xx = x.repeat(len(y))
        yy = y.view(-1, 1).repeat(1, len(x)).view(-1)
        if row_major:
            return xx, yy
        else:
            return yy, xx

    def grid_anchors(self, featmap_size, stride=16, device='cuda'):
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
    gx = px + pw * dx
    gy = py + ph * dy
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


class RetinaNetV1(nn.Module):
    def __init__(self, num_classes=5, feat_channels=32, octave_base_scale=4, scales_per_octave=3,
                 anchor_ratios=[0.5, 1.0, 2.0], anchor_strides=[8, 16]):
        super().__init__()
        self.cls_out_channels = num_classes - 1
        self.anchor_strides = anchor_strides
        octave_scales = np.array([2 ** (i / scales_per_octave) for i in range(scales_per_octave)])
        anchor_scales = octave_scales * octave_base_scale
        self.anchor_generators = [AnchorGenerator(base, anchor_scales, anchor_ratios) for base in anchor_strides]
        self.num_anchors = len(anchor_ratios) * len(anchor_scales)
        self.target_means = (.0, .0, .0, .0)
        self.target_stds = (1.0, 1.0, 1.0, 1.0)
        self.stem = nn.Sequential(nn.Conv2d(3, feat_channels, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(feat_channels, feat_channels, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(feat_channels, feat_channels, 3, 2, 1), nn.ReLU())
        self.down = nn.Conv2d(feat_channels, feat_channels, 3, 2, 1)
        self.retina_cls = nn.Conv2d(feat_channels, self.num_anchors * self.cls_out_channels, 3, padding=1)
        self.retina_reg = nn.Conv2d(feat_channels, self.num_anchors * 4, 3, padding=1)

    def forward(self, img):
        p3 = self.stem(img)
        feats = [p3, self.down(p3)]
        cls_scores = [self.retina_cls(f) for f in feats]
        bbox_preds = [self.retina_reg(f) for f in feats]
        num_levels = len(cls_scores)
        device = cls_scores[0].device
        mlvl_anchors = [
            self.anchor_generators[i].grid_anchors(cls_scores[i].size()[-2:], self.anchor_strides[i], device=device)
            for i in range(num_levels)
        ]
        img_id = 0
        cls_score_list = [cls_scores[i][img_id].detach() for i in range(num_levels)]
        bbox_pred_list = [bbox_preds[i][img_id].detach() for i in range(num_levels)]
        mlvl_bboxes = []
        mlvl_scores = []
        for cls_score, bbox_pred, anchors in zip(cls_score_list, bbox_pred_list, mlvl_anchors):
            cls_score = cls_score.permute(1, 2, 0).reshape(-1, self.cls_out_channels)
            scores = cls_score.sigmoid()
            bbox_pred = bbox_pred.permute(1, 2, 0).reshape(-1, 4)
            bboxes = delta2bbox(anchors, bbox_pred, self.target_means, self.target_stds)
            mlvl_bboxes.append(bboxes)
            mlvl_scores.append(scores)
        return torch.cat(mlvl_bboxes), torch.cat(mlvl_scores)


def make_model():
    return RetinaNetV1().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(1, 3, 192, 416),), (torch.randn(1, 3, 320, 224),)]


def probe_inputs():
    return other_inputs()
