"""super-gradients PP-YOLOE head: `forward_eval` regenerates ATSS anchors from every feature-map size in forward
(`torch.arange(end=w)`, `num_anchors_list.append(len(anchors[-1]))`, `torch.full([num_anchors_list[-1], 1], stride)`)
and returns them with the Python-int `num_anchors_list` in the raw predictions; the fix caches the anchors for a fixed
export size and returns only the decoded predictions while tracing.

Source: https://github.com/Deci-AI/super-gradients/commit/c3d83234abbf00778b766525df577b76caac1a92
"""
from typing import Tuple, Type

import torch
from torch import nn, Tensor

CLASS = "outputs"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-61"


def batch_distance2bbox(points: Tensor, distance: Tensor, max_shapes=None) -> Tensor:
    lt, rb = torch.split(distance, 2, dim=-1)
    x1y1 = -lt + points
    x2y2 = rb + points
    out_bbox = torch.cat([x1y1, x2y2], dim=-1)
    return out_bbox


@torch.no_grad()
def generate_anchors_for_grid_cell(feats: Tuple[Tensor, ...], fpn_strides: Tuple[int, ...], grid_cell_size=5.0, grid_cell_offset=0.5, dtype=torch.float):
    assert len(feats) == len(fpn_strides)
    device = feats[0].device
    anchors = []
    anchor_points = []
    num_anchors_list = []
    stride_tensor = []
    for feat, stride in zip(feats, fpn_strides):
        _, _, h, w = feat.shape
        cell_half_size = grid_cell_size * stride * 0.5
        shift_x = (torch.arange(end=w) + grid_cell_offset) * stride
        shift_y = (torch.arange(end=h) + grid_cell_offset) * stride
        shift_y, shift_x = torch.meshgrid(shift_y, shift_x, indexing="ij")
        anchor = torch.stack(
            [shift_x - cell_half_size, shift_y - cell_half_size, shift_x + cell_half_size, shift_y + cell_half_size],
            dim=-1,
        ).to(dtype=dtype)
        anchor_point = torch.stack([shift_x, shift_y], dim=-1).to(dtype=dtype)
        anchors.append(anchor.reshape([-1, 4]))
        anchor_points.append(anchor_point.reshape([-1, 2]))
        num_anchors_list.append(len(anchors[-1]))
        stride_tensor.append(torch.full([num_anchors_list[-1], 1], stride, dtype=dtype))
    anchors = torch.cat(anchors).to(device)
    anchor_points = torch.cat(anchor_points).to(device)
    stride_tensor = torch.cat(stride_tensor).to(device)
    return anchors, anchor_points, num_anchors_list, stride_tensor


class ESEAttn(nn.Module):
    def __init__(self, feat_channels: int, activation_type: Type[nn.Module]):
        super(ESEAttn, self).__init__()
        self.fc = nn.Conv2d(feat_channels, feat_channels, kernel_size=1)
        self.conv = nn.Sequential(nn.Conv2d(feat_channels, feat_channels, 1, bias=False), nn.BatchNorm2d(feat_channels), activation_type())

    def forward(self, feat, avg_feat):
        weight = torch.sigmoid(self.fc(avg_feat))
        return self.conv(feat * weight)


class PPYOLOEHead(nn.Module):
    def __init__(self, num_classes, in_channels, activation=nn.SiLU, fpn_strides=(16, 8), grid_cell_scale=5.0,
                 grid_cell_offset=0.5, reg_max=16, eval_size=None):
        super(PPYOLOEHead, self).__init__()
        self.in_channels = tuple(in_channels)
        self.num_classes = num_classes
        self.fpn_strides = fpn_strides
        self.grid_cell_scale = grid_cell_scale
        self.grid_cell_offset = grid_cell_offset
        self.reg_max = reg_max
        self.eval_size = eval_size
        self.stem_cls = nn.ModuleList([ESEAttn(c, activation) for c in self.in_channels])
        self.stem_reg = nn.ModuleList([ESEAttn(c, activation) for c in self.in_channels])
        self.pred_cls = nn.ModuleList([nn.Conv2d(c, self.num_classes, 3, padding=1) for c in self.in_channels])
        self.pred_reg = nn.ModuleList([nn.Conv2d(c, 4 * (self.reg_max + 1), 3, padding=1) for c in self.in_channels])
        proj = torch.linspace(0, self.reg_max, self.reg_max + 1).reshape([1, self.reg_max + 1, 1, 1])
        self.register_buffer("proj_conv", proj, persistent=False)

    def forward_eval(self, feats: Tuple[Tensor, ...]) -> Tuple[Tuple[Tensor, Tensor], Tuple[Tensor, ...]]:
        anchors, anchor_points, num_anchors_list, stride_tensor = generate_anchors_for_grid_cell(
            feats, self.fpn_strides, self.grid_cell_scale, self.grid_cell_offset
        )

        cls_score_list, reg_distri_list, reg_dist_reduced_list = [], [], []

        for i, feat in enumerate(feats):
            b, _, h, w = feat.shape
            height_mul_width = h * w
            avg_feat = torch.nn.functional.adaptive_avg_pool2d(feat, (1, 1))
            cls_logit = self.pred_cls[i](self.stem_cls[i](feat, avg_feat) + feat)
            reg_distri = self.pred_reg[i](self.stem_reg[i](feat, avg_feat))
            reg_distri_list.append(torch.permute(reg_distri.flatten(2), [0, 2, 1]))

            reg_dist_reduced = torch.permute(reg_distri.reshape([-1, 4, self.reg_max + 1, height_mul_width]), [0, 2, 3, 1])
            reg_dist_reduced = torch.nn.functional.conv2d(torch.nn.functional.softmax(reg_dist_reduced, dim=1), weight=self.proj_conv).squeeze(1)

            cls_score_list.append(cls_logit.reshape([b, self.num_classes, height_mul_width]))
            reg_dist_reduced_list.append(reg_dist_reduced)

        cls_score_list = torch.cat(cls_score_list, dim=-1)  # [B, C, Anchors]
        cls_score_list = torch.permute(cls_score_list, [0, 2, 1])  # # [B, Anchors, C]

        reg_distri_list = torch.cat(reg_distri_list, dim=1)  # [B, Anchors, 4 * (self.reg_max + 1)]
        reg_dist_reduced_list = torch.cat(reg_dist_reduced_list, dim=1)  # [B, Anchors, 4]

        anchor_points_inference, _ = self._generate_anchors(feats)

        pred_scores = cls_score_list.sigmoid()
        pred_bboxes = batch_distance2bbox(anchor_points_inference, reg_dist_reduced_list) * stride_tensor  # [B, Anchors, 4]

        decoded_predictions = pred_bboxes, pred_scores

        raw_predictions = cls_score_list, reg_distri_list, anchors, anchor_points, num_anchors_list, stride_tensor

        return decoded_predictions, raw_predictions

    def _generate_anchors(self, feats=None, dtype=torch.float):
        anchor_points = []
        stride_tensor = []
        for i, stride in enumerate(self.fpn_strides):
            _, _, h, w = feats[i].shape
            shift_x = torch.arange(end=w) + self.grid_cell_offset
            shift_y = torch.arange(end=h) + self.grid_cell_offset
            shift_y, shift_x = torch.meshgrid(shift_y, shift_x, indexing="ij")
            anchor_point = torch.stack([shift_x, shift_y], dim=-1).to(dtype=dtype)
            anchor_points.append(anchor_point.reshape([-1, 2]))
            stride_tensor.append(torch.full([h * w, 1], stride, dtype=dtype))
        anchor_points = torch.cat(anchor_points)
        stride_tensor = torch.cat(stride_tensor)
        anchor_points = anchor_points.to(feats[0].device)
        stride_tensor = stride_tensor.to(feats[0].device)
        return anchor_points, stride_tensor


class PPYoloE(nn.Module):
    def __init__(self):
        super().__init__()
        self.c8 = nn.Sequential(nn.Conv2d(3, 16, 3, 4, 1), nn.SiLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU())
        self.c16 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        self.head = PPYOLOEHead(num_classes=5, in_channels=(32, 16), fpn_strides=(16, 8))

    def forward(self, x):
        p8 = self.c8(x)
        p16 = self.c16(p8)
        return self.head.forward_eval((p16, p8))


def make_model():
    return PPYoloE().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(1, 3, 128, 80),)]


def probe_inputs():
    return other_inputs()
