"""mmdetection FCOSHead before the batch-inference refactor: get_bboxes loops over the images and
_get_bboxes_single keeps the top `nms_pre` points of a pyramid level only
`if nms_pre > 0 and scores.shape[0] > nms_pre:`, a Python branch on the number of points, which grows
with the image size. The PR rewrote it as a batched `_get_bboxes` that always keeps the topk in ONNX
(`nms_pre_tensor`, `torch.where(nms_pre_tensor < num_anchor, ...)`) so FCOS exports with dynamic shape.
(The image-shape clamp and the multiclass NMS that follow are left out.)

Source: https://github.com/open-mmlab/mmdetection/pull/4699
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-55"

INF = 1e8


def distance2bbox(points, distance, max_shape=None):
    x1 = points[:, 0] - distance[:, 0]
    y1 = points[:, 1] - distance[:, 1]
    x2 = points[:, 0] + distance[:, 2]
    y2 = points[:, 1] + distance[:, 3]
    if max_shape is not None:
        x1 = x1.clamp(min=0, max=max_shape[1])
        y1 = y1.clamp(min=0, max=max_shape[0])
        x2 = x2.clamp(min=0, max=max_shape[1])
        y2 = y2.clamp(min=0, max=max_shape[0])
    return torch.stack([x1, y1, x2, y2], -1)


class Scale(nn.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(scale, dtype=torch.float))

    def forward(self, x):
        return x * self.scale


class FCOS(nn.Module):
    def __init__(self, num_classes=4, feat_channels=16, strides=(8, 16, 32)):
        super().__init__()
        self.backbone = nn.ModuleList([nn.Conv2d(3, feat_channels, 3, stride=8, padding=1),
                                       nn.Conv2d(feat_channels, feat_channels, 3, stride=2, padding=1),
                                       nn.Conv2d(feat_channels, feat_channels, 3, stride=2, padding=1)])
        self.cls_out_channels = num_classes
        self.strides = strides
        self.conv_cls = nn.Conv2d(feat_channels, self.cls_out_channels, 3, padding=1)
        self.conv_reg = nn.Conv2d(feat_channels, 4, 3, padding=1)
        self.conv_centerness = nn.Conv2d(feat_channels, 1, 3, padding=1)
        self.scales = nn.ModuleList([Scale(1.0) for _ in self.strides])
        self.test_cfg = dict(nms_pre=1000, min_bbox_size=0, score_thr=0.05, max_per_img=100)

    def forward_single(self, x, scale, stride):
        cls_score = self.conv_cls(x)
        centerness = self.conv_centerness(x)
        bbox_pred = scale(self.conv_reg(x)).float()
        bbox_pred = bbox_pred.clamp(min=0) * stride
        return cls_score, bbox_pred, centerness

    def _get_points_single(self, featmap_size, stride, dtype, device, flatten=False):
        h, w = featmap_size
        x_range = torch.arange(w, dtype=dtype, device=device)
        y_range = torch.arange(h, dtype=dtype, device=device)
        y, x = torch.meshgrid(y_range, x_range, indexing="ij")
        points = torch.stack((x.reshape(-1) * stride, y.reshape(-1) * stride), dim=-1) + stride // 2
        return points

    def get_points(self, featmap_sizes, dtype, device, flatten=False):
        mlvl_points = []
        for i in range(len(featmap_sizes)):
            mlvl_points.append(self._get_points_single(featmap_sizes[i], self.strides[i], dtype, device, flatten))
        return mlvl_points

    def get_bboxes(self, cls_scores, bbox_preds, centernesses, img_metas, cfg=None, rescale=False):
        assert len(cls_scores) == len(bbox_preds)
        num_levels = len(cls_scores)
        featmap_sizes = [featmap.size()[-2:] for featmap in cls_scores]
        mlvl_points = self.get_points(featmap_sizes, bbox_preds[0].dtype, bbox_preds[0].device)
        result_list = []
        for img_id in range(len(img_metas)):
            cls_score_list = [cls_scores[i][img_id].detach() for i in range(num_levels)]
            bbox_pred_list = [bbox_preds[i][img_id].detach() for i in range(num_levels)]
            centerness_pred_list = [centernesses[i][img_id].detach() for i in range(num_levels)]
            img_shape = img_metas[img_id].get('img_shape')
            scale_factor = img_metas[img_id]['scale_factor']
            det_bboxes = self._get_bboxes_single(cls_score_list, bbox_pred_list, centerness_pred_list,
                                                 mlvl_points, img_shape, scale_factor, cfg, rescale)
            result_list.append(det_bboxes)
        return result_list

    def _get_bboxes_single(self, cls_scores, bbox_preds, centernesses, mlvl_points, img_shape,
                           scale_factor, cfg, rescale=False):
        cfg = self.test_cfg if cfg is None else cfg
        assert len(cls_scores) == len(bbox_preds) == len(mlvl_points)
        mlvl_bboxes = []
        mlvl_scores = []
        mlvl_centerness = []
        for cls_score, bbox_pred, centerness, points in zip(cls_scores, bbox_preds, centernesses, mlvl_points):
            assert cls_score.size()[-2:] == bbox_pred.size()[-2:]
            scores = cls_score.permute(1, 2, 0).reshape(-1, self.cls_out_channels).sigmoid()
            centerness = centerness.permute(1, 2, 0).reshape(-1).sigmoid()

            bbox_pred = bbox_pred.permute(1, 2, 0).reshape(-1, 4)
            nms_pre = cfg.get('nms_pre', -1)
            if nms_pre > 0 and scores.shape[0] > nms_pre:
                max_scores, _ = (scores * centerness[:, None]).max(dim=1)
                _, topk_inds = max_scores.topk(nms_pre)
                points = points[topk_inds, :]
                bbox_pred = bbox_pred[topk_inds, :]
                scores = scores[topk_inds, :]
                centerness = centerness[topk_inds]
            bboxes = distance2bbox(points, bbox_pred, max_shape=img_shape)
            mlvl_bboxes.append(bboxes)
            mlvl_scores.append(scores)
            mlvl_centerness.append(centerness)
        mlvl_bboxes = torch.cat(mlvl_bboxes)
        if rescale:
            mlvl_bboxes /= mlvl_bboxes.new_tensor(scale_factor)
        mlvl_scores = torch.cat(mlvl_scores)
        padding = mlvl_scores.new_zeros(mlvl_scores.shape[0], 1)
        # remind that we set FG labels to [0, num_class-1] since mmdet v2.0
        # BG cat_id: num_class
        mlvl_scores = torch.cat([mlvl_scores, padding], dim=1)
        mlvl_centerness = torch.cat(mlvl_centerness)
        # (multiclass_nms(mlvl_bboxes, mlvl_scores, ..., score_factors=mlvl_centerness) left out)
        return mlvl_bboxes, mlvl_scores, mlvl_centerness

    def simple_test(self, img):
        feats, x = [], img
        for conv in self.backbone:
            x = conv(x).relu()
            feats.append(x)
        outs = [self.forward_single(f, s, st) for f, s, st in zip(feats, self.scales, self.strides)]
        cls_scores, bbox_preds, centernesses = map(list, zip(*outs))
        img_metas = [dict(scale_factor=1.0)]
        bbox_list = self.get_bboxes(cls_scores, bbox_preds, centernesses, img_metas, rescale=False)
        return bbox_list[0]

    forward = simple_test


def make_model():
    return FCOS().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(1, 3, 320, 416),), (torch.randn(1, 3, 256, 200),)]


def probe_inputs():
    return other_inputs()
