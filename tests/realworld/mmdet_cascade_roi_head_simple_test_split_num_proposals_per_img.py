"""mmdetection (v2.13) CascadeRoIHead.simple_test before the "Onnx cascade" PR: each stage splits the batched
RoI predictions back per image with `num_proposals_per_img = tuple(len(proposals) for proposals in
proposal_list)` / `rois.split(num_proposals_per_img, 0)`, refines the boxes image by image with
`regress_by_class` and re-concatenates them, then decodes per image. The PR replaced it with an
`onnx_export` that reshapes (batch, num_proposals) tensors instead, because the Python per-image sizes get
frozen while the number of RPN proposals changes from image to image.
(RoIAlign is a grid_sample stand-in; get_bboxes stops before NMS, as with cfg=None.)

Source: https://github.com/open-mmlab/mmdetection/pull/5486
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"proposals": {1: "num_proposals"}}
BLIND = "domains-56"


def bbox2roi(bbox_list):
    rois_list = []
    for img_id, bboxes in enumerate(bbox_list):
        if bboxes.size(0) > 0:
            img_inds = bboxes.new_full((bboxes.size(0), 1), img_id)
            rois = torch.cat([img_inds, bboxes[:, :4]], dim=-1)
        else:
            rois = bboxes.new_zeros((0, 5))
        rois_list.append(rois)
    rois = torch.cat(rois_list, 0)
    return rois


def delta2bbox(rois, deltas, means=(0., 0., 0., 0.), stds=(0.1, 0.1, 0.2, 0.2),
               max_shape=None, wh_ratio_clip=16 / 1000):
    means = deltas.new_tensor(means).view(1, -1).repeat(1, deltas.size(1) // 4)
    stds = deltas.new_tensor(stds).view(1, -1).repeat(1, deltas.size(1) // 4)
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
    pw = (rois[:, 2] - rois[:, 0]).unsqueeze(1).expand_as(dw)
    ph = (rois[:, 3] - rois[:, 1]).unsqueeze(1).expand_as(dh)
    gw = pw * dw.exp()
    gh = ph * dh.exp()
    gx = px + pw * dx
    gy = py + ph * dy
    x1 = gx - gw * 0.5
    y1 = gy - gh * 0.5
    x2 = gx + gw * 0.5
    y2 = gy + gh * 0.5
    if max_shape is not None:
        x1 = x1.clamp(min=0, max=max_shape[1])
        y1 = y1.clamp(min=0, max=max_shape[0])
        x2 = x2.clamp(min=0, max=max_shape[1])
        y2 = y2.clamp(min=0, max=max_shape[0])
    bboxes = torch.stack([x1, y1, x2, y2], dim=-1).view(deltas.size())
    return bboxes


def roi_extract(feat, rois, out_size=7, spatial_scale=0.25):
    H, W = feat.shape[-2:]
    x1, y1, x2, y2 = (rois[:, 1:] * spatial_scale).unbind(1)
    theta = torch.zeros(rois.shape[0], 2, 3, dtype=feat.dtype)
    theta[:, 0, 0] = (x2 - x1) / W
    theta[:, 0, 2] = (x1 + x2) / W - 1
    theta[:, 1, 1] = (y2 - y1) / H
    theta[:, 1, 2] = (y1 + y2) / H - 1
    grid = F.affine_grid(theta, [rois.shape[0], feat.shape[1], out_size, out_size], align_corners=False)
    return F.grid_sample(feat[rois[:, 0].long()], grid, align_corners=False)


class BBoxHead(nn.Module):
    def __init__(self, in_channels=8, num_classes=4):
        super().__init__()
        self.fc = nn.Linear(in_channels * 49, 32)
        self.fc_cls = nn.Linear(32, num_classes + 1)
        self.fc_reg = nn.Linear(32, 4)  # reg_class_agnostic=True in the cascade configs

    def forward(self, x):
        x = F.relu(self.fc(x.flatten(1)))
        return self.fc_cls(x), self.fc_reg(x)

    def regress_by_class(self, rois, label, bbox_pred, img_meta):
        assert rois.size(1) == 4 or rois.size(1) == 5, repr(rois.shape)
        assert bbox_pred.size(1) == 4
        if rois.size(1) == 4:
            new_rois = delta2bbox(rois, bbox_pred, max_shape=img_meta['img_shape'])
        else:
            bboxes = delta2bbox(rois[:, 1:], bbox_pred, max_shape=img_meta['img_shape'])
            new_rois = torch.cat((rois[:, [0]], bboxes), dim=1)
        return new_rois

    def get_bboxes(self, rois, cls_score, bbox_pred, img_shape, scale_factor, rescale=False, cfg=None):
        if isinstance(cls_score, list):
            cls_score = sum(cls_score) / float(len(cls_score))
        scores = F.softmax(cls_score, dim=-1) if cls_score is not None else None
        bboxes = delta2bbox(rois[..., 1:], bbox_pred, max_shape=img_shape)
        return bboxes, scores


class CascadeRoIHead(nn.Module):
    def __init__(self, num_stages=3):
        super().__init__()
        self.num_stages = num_stages
        self.bbox_head = nn.ModuleList([BBoxHead() for _ in range(num_stages)])

    def _bbox_forward(self, stage, x, rois):
        bbox_feats = roi_extract(x[0], rois)
        cls_score, bbox_pred = self.bbox_head[stage](bbox_feats)
        return dict(cls_score=cls_score, bbox_pred=bbox_pred, bbox_feats=bbox_feats)

    def simple_test(self, x, proposal_list, img_metas, rescale=False):
        num_imgs = len(proposal_list)
        img_shapes = tuple(meta['img_shape'] for meta in img_metas)
        scale_factors = tuple(meta['scale_factor'] for meta in img_metas)
        ms_scores = []

        rois = bbox2roi(proposal_list)
        for i in range(self.num_stages):
            bbox_results = self._bbox_forward(i, x, rois)

            # split batch bbox prediction back to each image
            cls_score = bbox_results['cls_score']
            bbox_pred = bbox_results['bbox_pred']
            num_proposals_per_img = tuple(
                len(proposals) for proposals in proposal_list)
            rois = rois.split(num_proposals_per_img, 0)
            cls_score = cls_score.split(num_proposals_per_img, 0)
            bbox_pred = bbox_pred.split(num_proposals_per_img, 0)
            ms_scores.append(cls_score)

            if i < self.num_stages - 1:
                bbox_label = [s[:, :-1].argmax(dim=1) for s in cls_score]
                rois = torch.cat([
                    self.bbox_head[i].regress_by_class(rois[j], bbox_label[j],
                                                       bbox_pred[j],
                                                       img_metas[j])
                    for j in range(num_imgs)
                ])

        # average scores of each image by stages
        cls_score = [
            sum([score[i] for score in ms_scores]) / float(len(ms_scores))
            for i in range(num_imgs)
        ]

        det_bboxes = []
        det_labels = []
        for i in range(num_imgs):
            det_bbox, det_label = self.bbox_head[-1].get_bboxes(
                rois[i], cls_score[i], bbox_pred[i], img_shapes[i],
                scale_factors[i], rescale=rescale, cfg=None)
            det_bboxes.append(det_bbox)
            det_labels.append(det_label)
        return det_bboxes, det_labels


class CascadeRCNNLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.roi_head = CascadeRoIHead()

    def forward(self, img, proposals):
        x = (torch.relu(self.backbone(img)), )
        img_metas = [dict(img_shape=(64, 64, 3), scale_factor=1.0) for _ in range(img.shape[0])]
        proposal_list = [p for p in proposals]
        det_bboxes, det_labels = self.roi_head.simple_test(x, proposal_list, img_metas)
        return det_bboxes[0], det_labels[0]


def make_model():
    return CascadeRCNNLite().eval()


def _proposals(n):
    xy = torch.rand(1, n, 2) * 40
    wh = torch.rand(1, n, 2) * 20 + 4
    return torch.cat([xy, xy + wh], dim=-1)


def example_inputs():
    return (torch.randn(1, 3, 64, 64), _proposals(50))


def other_inputs():
    return [(torch.randn(1, 3, 64, 64), _proposals(37)), (torch.randn(1, 3, 64, 64), _proposals(81))]


def probe_inputs():
    return other_inputs()
