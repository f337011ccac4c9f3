"""MMYOLO YOLOv5 head, mmdeploy rewrite of `predict_by_feat` (box decoding before NMS): the per-level
stride tensor is built with `flatten_priors.new_full((featmap_size.numel() * self.num_base_priors, ),
stride)` where `featmap_size = cls_score.shape[2:]`; `torch.Size.numel()` gives a plain Python int, so
with dynamic input height/width the exported stride vector keeps the example's length (the commit
"fix trt dynamic error" switches to `featmap_size[0] * featmap_size[1]`).

Source: https://github.com/open-mmlab/mmyolo/commit/9fe848fce14fa88ad61643780f6bbc932104a046
"""
import copy
from typing import List, Optional

import torch
from torch import Tensor, nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"inputs": {2: "height", 3: "width"}}
BLIND = "domains-33"


class YOLOAnchorGenerator:
    """mmdet YOLOAnchorGenerator.grid_priors (the lines used here)."""

    def __init__(self, base_sizes, strides):
        self.strides = [(s, s) for s in strides]
        self.base_sizes = base_sizes
        self.base_anchors = []
        for i, base_sizes_per_level in enumerate(base_sizes):
            x_center, y_center = self.strides[i][0] / 2., self.strides[i][1] / 2.
            base_anchors = []
            for base_size in base_sizes_per_level:
                w, h = base_size
                base_anchor = torch.Tensor([x_center - 0.5 * w, y_center - 0.5 * h,
                                            x_center + 0.5 * w, y_center + 0.5 * h])
                base_anchors.append(base_anchor)
            self.base_anchors.append(torch.stack(base_anchors, dim=0))

    @property
    def num_base_priors(self):
        return [base_anchors.size(0) for base_anchors in self.base_anchors]

    def _meshgrid(self, x, y):
        xx = x.repeat(y.shape[0])
        yy = y.view(-1, 1).repeat(1, x.shape[0]).view(-1)
        return xx, yy

    def grid_priors(self, featmap_sizes, dtype=torch.float32, device='cpu'):
        return [self.single_level_grid_priors(featmap_sizes[i], i, dtype=dtype, device=device)
                for i in range(len(featmap_sizes))]

    def single_level_grid_priors(self, featmap_size, level_idx, dtype=torch.float32, device='cpu'):
        base_anchors = self.base_anchors[level_idx].to(device).to(dtype)
        feat_h, feat_w = featmap_size
        stride_w, stride_h = self.strides[level_idx]
        shift_x = torch.arange(0, feat_w, device=device).to(dtype) * stride_w
        shift_y = torch.arange(0, feat_h, device=device).to(dtype) * stride_h
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1)
        all_anchors = base_anchors[None, :, :] + shifts[:, None, :]
        return all_anchors.view(-1, 4)


class YOLOv5BBoxCoder:
    def decode(self, priors, pred_bboxes, stride):
        assert pred_bboxes.size(-1) == priors.size(-1) == 4
        pred_bboxes = pred_bboxes.sigmoid()
        x_center = (priors[..., 0] + priors[..., 2]) * 0.5
        y_center = (priors[..., 1] + priors[..., 3]) * 0.5
        w = priors[..., 2] - priors[..., 0]
        h = priors[..., 3] - priors[..., 1]
        # The anchor of mmdet has been offset by 0.5
        x_center_pred = (pred_bboxes[..., 0] - 0.5) * 2 * stride + x_center
        y_center_pred = (pred_bboxes[..., 1] - 0.5) * 2 * stride + y_center
        w_pred = (pred_bboxes[..., 2] * 2)**2 * w
        h_pred = (pred_bboxes[..., 3] * 2)**2 * h
        return torch.stack((x_center_pred - w_pred / 2, y_center_pred - h_pred / 2,
                            x_center_pred + w_pred / 2, y_center_pred + h_pred / 2), dim=-1)


def yolov5_head__predict_by_feat(self, cls_scores: List[Tensor], bbox_preds: List[Tensor],
                                 objectnesses: Optional[List[Tensor]],
                                 batch_img_metas: Optional[List[dict]] = None,
                                 cfg=None, rescale: bool = False, with_nms: bool = True):
    assert len(cls_scores) == len(bbox_preds)
    cfg = self.test_cfg if cfg is None else cfg
    cfg = copy.deepcopy(cfg)

    num_imgs = len(batch_img_metas)
    featmap_sizes = [cls_score.shape[2:] for cls_score in cls_scores]

    mlvl_priors = self.prior_generator.grid_priors(
        featmap_sizes, dtype=cls_scores[0].dtype, device=cls_scores[0].device)
    flatten_priors = torch.cat(mlvl_priors)

    mlvl_strides = [
        flatten_priors.new_full(
            (featmap_size.numel() * self.num_base_priors, ), stride)
        for featmap_size, stride in zip(featmap_sizes, self.featmap_strides)
    ]
    flatten_stride = torch.cat(mlvl_strides)

    # flatten cls_scores, bbox_preds and objectness
    flatten_cls_scores = [
        cls_score.permute(0, 2, 3, 1).reshape(num_imgs, -1, self.num_classes)
        for cls_score in cls_scores
    ]
    flatten_bbox_preds = [
        bbox_pred.permute(0, 2, 3, 1).reshape(num_imgs, -1, 4)
        for bbox_pred in bbox_preds
    ]
    flatten_objectness = [
        objectness.permute(0, 2, 3, 1).reshape(num_imgs, -1)
        for objectness in objectnesses
    ]

    cls_scores = torch.cat(flatten_cls_scores, dim=1).sigmoid()
    flatten_bbox_preds = torch.cat(flatten_bbox_preds, dim=1)
    flatten_objectness = torch.cat(flatten_objectness, dim=1).sigmoid()
    bboxes = self.bbox_coder.decode(flatten_priors[None], flatten_bbox_preds, flatten_stride)

    # directly multiply score factor and feed to nms
    scores = cls_scores * (flatten_objectness.unsqueeze(-1))

    if not with_nms:
        return bboxes, scores


class YOLOv5Head(nn.Module):
    def __init__(self, num_classes=4, in_channels=(16, 32, 64), featmap_strides=(8, 16, 32)):
        super().__init__()
        self.num_classes = num_classes
        self.featmap_strides = list(featmap_strides)
        self.prior_generator = YOLOAnchorGenerator(
            base_sizes=[[(10, 13), (16, 30), (33, 23)], [(30, 61), (62, 45), (59, 119)],
                        [(116, 90), (156, 198), (373, 326)]],
            strides=featmap_strides)
        self.bbox_coder = YOLOv5BBoxCoder()
        self.num_base_priors = self.prior_generator.num_base_priors[0]
        self.num_out_attrib = 5 + num_classes
        self.convs_pred = nn.ModuleList(
            nn.Conv2d(c, self.num_base_priors * self.num_out_attrib, 1) for c in in_channels)
        self.test_cfg = dict(score_thr=0.001, nms=dict(type='nms', iou_threshold=0.65), max_per_img=300)

    def forward_single(self, x, convs):
        pred_map = convs(x)
        bs, _, ny, nx = pred_map.shape
        pred_map = pred_map.view(bs, self.num_base_priors, self.num_out_attrib, ny, nx)
        cls_score = pred_map[:, :, 5:, ...].reshape(bs, -1, ny, nx)
        bbox_pred = pred_map[:, :, :4, ...].reshape(bs, -1, ny, nx)
        objectness = pred_map[:, :, 4:5, ...].reshape(bs, -1, ny, nx)
        return cls_score, bbox_pred, objectness

    def forward(self, feats):
        outs = [self.forward_single(x, conv) for x, conv in zip(feats, self.convs_pred)]
        return tuple(map(list, zip(*outs)))


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.SiLU(),
                                  nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU(),
                                  nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU())
        self.down1 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        self.down2 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.SiLU())

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down1(p3)
        p5 = self.down2(p4)
        return [p3, p4, p5]


class End2EndYOLOv5(nn.Module):
    """What mmdeploy traces: backbone -> head -> rewritten predict_by_feat (NMS left out)."""

    def __init__(self):
        super().__init__()
        self.backbone = TinyBackbone()
        self.bbox_head = YOLOv5Head()

    def forward(self, inputs):
        batch_img_metas = [dict(img_shape=(640, 640), scale_factor=(1.0, 1.0))]
        cls_scores, bbox_preds, objectnesses = self.bbox_head(self.backbone(inputs))
        return yolov5_head__predict_by_feat(self.bbox_head, cls_scores, bbox_preds, objectnesses,
                                            batch_img_metas=batch_img_metas, with_nms=False)


def make_model():
    return End2EndYOLOv5().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 256),)


def other_inputs():
    return [(torch.randn(1, 3, 384, 320),), (torch.randn(1, 3, 224, 288),)]


def probe_inputs():
    return other_inputs()
