"""MMRotate 1.x RTMDet-R: `RotatedRTMDetHead.predict_by_feat` loops over the images of the batch and, per image
and level, keeps `scores > score_thr` with `filter_scores_and_topk` (mask, `torch.nonzero`,
`min(topk, valid_idxs.size(0))`, sort) before decoding rotated boxes and dropping small ones; mmdeploy had to
rewrite `predict_by_feat` as a batched, fixed-shape decode (scores masked with `where`) to deploy RTMDet-R.

Source: https://github.com/open-mmlab/mmdeploy/pull/1553
"""
import numpy as np
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-45"


def norm_angle(angle, angle_range):
    if angle_range == 'oc':
        return angle
    elif angle_range == 'le135':
        return (angle + np.pi / 4) % np.pi - np.pi / 4
    elif angle_range == 'le90':
        return (angle + np.pi / 2) % np.pi - np.pi / 2


def select_single_mlvl(mlvl_tensors, batch_id, detach=True):
    num_levels = len(mlvl_tensors)
    if detach:
        mlvl_tensor_list = [
            mlvl_tensors[i][batch_id].detach() for i in range(num_levels)
        ]
    else:
        mlvl_tensor_list = [
            mlvl_tensors[i][batch_id] for i in range(num_levels)
        ]
    return mlvl_tensor_list


def filter_scores_and_topk(scores, score_thr, topk, results=None):
    valid_mask = scores > score_thr
    scores = scores[valid_mask]
    valid_idxs = torch.nonzero(valid_mask)

    num_topk = min(topk, valid_idxs.size(0))
    # torch.sort is actually faster than .topk (at least on GPUs)
    scores, idxs = scores.sort(descending=True)
    scores = scores[:num_topk]
    topk_idxs = valid_idxs[idxs[:num_topk]]
    keep_idxs, labels = topk_idxs.unbind(dim=1)

    filtered_results = None
    if results is not None:
        if isinstance(results, dict):
            filtered_results = {k: v[keep_idxs] for k, v in results.items()}
    return scores, labels, keep_idxs, filtered_results


class MlvlPointGenerator:

    def __init__(self, strides, offset=0.):
        self.strides = [(s, s) for s in strides]
        self.offset = offset

    def _meshgrid(self, x, y, row_major=True):
        yy, xx = torch.meshgrid(y, x)
        return xx.reshape(-1), yy.reshape(-1)

    def grid_priors(self, featmap_sizes, dtype=torch.float32, device='cuda'):
        multi_level_priors = []
        for i in range(len(self.strides)):
            feat_h, feat_w = featmap_sizes[i]
            stride_w, stride_h = self.strides[i]
            shift_x = (torch.arange(0, feat_w, device=device) + self.offset) * stride_w
            shift_x = shift_x.to(dtype)
            shift_y = (torch.arange(0, feat_h, device=device) + self.offset) * stride_h
            shift_y = shift_y.to(dtype)
            shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
            multi_level_priors.append(torch.stack([shift_xx, shift_yy], dim=-1))
        return multi_level_priors


def distance2obb(points, distance, max_shape=None, angle_version='le90'):
    distance, angle = distance.split([4, 1], dim=-1)
    cos_angle, sin_angle = torch.cos(angle), torch.sin(angle)
    rot_matrix = torch.cat([cos_angle, -sin_angle, sin_angle, cos_angle], dim=-1)
    rot_matrix = rot_matrix.reshape(*rot_matrix.shape[:-1], 2, 2)
    wh = distance[..., :2] + distance[..., 2:]
    offset_t = (distance[..., 2:] - distance[..., :2]) / 2
    offset_t = offset_t.unsqueeze(-1)
    offset = torch.matmul(rot_matrix, offset_t).squeeze(-1)
    ctr = points[..., :2] + offset
    angle_regular = norm_angle(angle, angle_version)
    return torch.cat([ctr, wh, angle_regular], dim=-1)


class RotatedRTMDetHead(nn.Module):

    def __init__(self, num_classes=15, in_channels=32, strides=(8, 16, 32)):
        super().__init__()
        self.cls_out_channels = num_classes
        self.prior_generator = MlvlPointGenerator(strides, offset=0)
        self.cls_convs = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.reg_convs = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.rtm_cls = nn.Conv2d(in_channels, num_classes, 1)
        self.rtm_reg = nn.Conv2d(in_channels, 4, 1)
        self.rtm_ang = nn.Conv2d(in_channels, 1, 1)
        self.test_cfg = dict(nms_pre=2000, min_bbox_size=0, score_thr=0.05, max_per_img=2000)

    def forward(self, feats):
        cls_scores, bbox_preds, angle_preds = [], [], []
        for x, stride in zip(feats, self.prior_generator.strides):
            cls_feat = torch.relu(self.cls_convs(x))
            reg_feat = torch.relu(self.reg_convs(x))
            cls_scores.append(self.rtm_cls(cls_feat))
            bbox_preds.append(self.rtm_reg(reg_feat).exp() * stride[0])
            angle_preds.append(self.rtm_ang(reg_feat))
        return tuple(cls_scores), tuple(bbox_preds), tuple(angle_preds)

    def predict_by_feat(self, cls_scores, bbox_preds, angle_preds, batch_img_metas=None,
                        cfg=None, rescale=False, with_nms=False):
        num_levels = len(cls_scores)
        featmap_sizes = [cls_scores[i].shape[-2:] for i in range(num_levels)]
        mlvl_priors = self.prior_generator.grid_priors(
            featmap_sizes, dtype=cls_scores[0].dtype, device=cls_scores[0].device)
        result_list = []
        for img_id in range(len(batch_img_metas)):
            img_meta = batch_img_metas[img_id]
            cls_score_list = select_single_mlvl(cls_scores, img_id, detach=True)
            bbox_pred_list = select_single_mlvl(bbox_preds, img_id, detach=True)
            angle_pred_list = select_single_mlvl(angle_preds, img_id, detach=True)
            results = self._predict_by_feat_single(
                cls_score_list=cls_score_list,
                bbox_pred_list=bbox_pred_list,
                angle_pred_list=angle_pred_list,
                mlvl_priors=mlvl_priors,
                img_meta=img_meta,
                cfg=cfg,
                rescale=rescale,
                with_nms=with_nms)
            result_list.append(results)
        return result_list

    def _predict_by_feat_single(self, cls_score_list, bbox_pred_list, angle_pred_list, mlvl_priors,
                                img_meta, cfg, rescale=False, with_nms=False):
        cfg = self.test_cfg if cfg is None else cfg
        img_shape = img_meta['img_shape']
        nms_pre = cfg.get('nms_pre', -1)
        mlvl_bbox_preds, mlvl_valid_priors, mlvl_scores, mlvl_labels = [], [], [], []
        for level_idx, (cls_score, bbox_pred, angle_pred, priors) in \
                enumerate(zip(cls_score_list, bbox_pred_list, angle_pred_list, mlvl_priors)):
            assert cls_score.size()[-2:] == bbox_pred.size()[-2:]
            bbox_pred = bbox_pred.permute(1, 2, 0).reshape(-1, 4)
            angle_pred = angle_pred.permute(1, 2, 0).reshape(-1, 1)
            cls_score = cls_score.permute(1, 2, 0).reshape(-1, self.cls_out_channels)
            scores = cls_score.sigmoid()
            score_thr = cfg.get('score_thr', 0)
            results = filter_scores_and_topk(
                scores, score_thr, nms_pre,
                dict(bbox_pred=bbox_pred, angle_pred=angle_pred, priors=priors))
            scores, labels, keep_idxs, filtered_results = results
            bbox_pred = filtered_results['bbox_pred']
            angle_pred = filtered_results['angle_pred']
            priors = filtered_results['priors']
            decoded_angle = angle_pred  # PseudoAngleCoder.decode(keepdim=True)
            bbox_pred = torch.cat([bbox_pred, decoded_angle], dim=-1)
            mlvl_bbox_preds.append(bbox_pred)
            mlvl_valid_priors.append(priors)
            mlvl_scores.append(scores)
            mlvl_labels.append(labels)

        bbox_pred = torch.cat(mlvl_bbox_preds)
        priors = torch.cat(mlvl_valid_priors)
        bboxes = distance2obb(priors, bbox_pred, max_shape=img_shape, angle_version='le90')
        results = dict(bboxes=bboxes, scores=torch.cat(mlvl_scores), labels=torch.cat(mlvl_labels))
        # _bbox_post_process: filter small size bboxes
        if cfg.get('min_bbox_size', -1) >= 0:
            w, h = results['bboxes'][:, 2], results['bboxes'][:, 3]
            valid_mask = (w > cfg['min_bbox_size']) & (h > cfg['min_bbox_size'])
            if not valid_mask.all():
                results = {k: v[valid_mask] for k, v in results.items()}
        return results


class RTMDetR(nn.Module):

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, stride=8, padding=1)
        self.down1 = nn.Conv2d(32, 32, 3, stride=2, padding=1)
        self.down2 = nn.Conv2d(32, 32, 3, stride=2, padding=1)
        self.bbox_head = RotatedRTMDetHead()

    def forward(self, inputs):
        p3 = torch.relu(self.stem(inputs))
        p4 = torch.relu(self.down1(p3))
        p5 = torch.relu(self.down2(p4))
        outs = self.bbox_head((p3, p4, p5))
        batch_img_metas = [dict(img_shape=inputs.shape[-2:]) for _ in range(inputs.shape[0])]
        return self.bbox_head.predict_by_feat(*outs, batch_img_metas=batch_img_metas)


def make_model():
    return RTMDetR().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 128),), (torch.randn(1, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
