"""MMPose YOLOX-Pose head (mmpose/models/heads/hybrid_heads/yoloxpose_head.py): `predict` decodes
boxes and keypoints from the anchor-free priors, then per image filters by score with
`filter_scores_and_topk` (boolean mask + nonzero + `min(topk, valid_idxs.size(0))`), branches on
`bboxes.numel() > 0` and runs mmpose's pure-torch `nms_torch` (`while len(indices):` greedy loop).
mmdeploy had to replace this predict with a batched multiclass-NMS rewriter to export YOLOX-Pose
to ONNX (the PR fixes "the onnx exportation for yoloxpose in mmpose").

Source: https://github.com/open-mmlab/mmdeploy/pull/2466
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-50"


def bbox_overlaps(bboxes1, bboxes2, eps=1e-6):
    if bboxes1.dim() == 1:
        bboxes1 = bboxes1.unsqueeze(0)
    if bboxes2.dim() == 1:
        bboxes2 = bboxes2.unsqueeze(0)
    area1 = (bboxes1[:, 2] - bboxes1[:, 0]) * (bboxes1[:, 3] - bboxes1[:, 1])
    area2 = (bboxes2[:, 2] - bboxes2[:, 0]) * (bboxes2[:, 3] - bboxes2[:, 1])
    lt = torch.max(bboxes1[:, None, :2], bboxes2[None, :, :2])
    rb = torch.min(bboxes1[:, None, 2:], bboxes2[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    overlap = wh[..., 0] * wh[..., 1]
    union = area1[:, None] + area2[None, :] - overlap
    return overlap / torch.max(union, union.new_tensor([eps]))


def nms_torch(bboxes, scores, threshold=0.65, iou_calculator=bbox_overlaps, return_group=False):
    _, indices = scores.sort(descending=True)
    groups = []
    while len(indices):
        idx, indices = indices[0], indices[1:]
        bbox = bboxes[idx]
        ious = iou_calculator(bbox, bboxes[indices])
        close_indices = torch.where(ious > threshold)[1]
        keep_indices = torch.ones_like(indices, dtype=torch.bool)
        keep_indices[close_indices] = 0
        groups.append(torch.cat((idx[None], indices[close_indices])))
        indices = indices[keep_indices]

    if return_group:
        return groups
    else:
        return torch.cat([g[:1] for g in groups])


def filter_scores_and_topk(scores, score_thr, topk, results=None):
    valid_mask = scores > score_thr
    scores = scores[valid_mask]
    valid_idxs = torch.nonzero(valid_mask)

    num_topk = min(topk, valid_idxs.size(0))
    scores, idxs = scores.sort(descending=True)
    scores = scores[:num_topk]
    topk_idxs = valid_idxs[idxs[:num_topk]]
    keep_idxs, labels = topk_idxs.unbind(dim=1)

    filtered_results = None
    if results is not None:
        if isinstance(results, dict):
            filtered_results = {k: v[keep_idxs] for k, v in results.items()}
    return scores, labels, keep_idxs, filtered_results


class YOLOXPoseHead(nn.Module):
    def __init__(self, in_channels=16, num_keypoints=17, featmap_strides=(8, 16, 32)):
        super().__init__()
        self.num_keypoints = num_keypoints
        self.featmap_strides = featmap_strides
        self.stems = nn.ModuleList(
            nn.Conv2d(3 if i == 0 else in_channels, in_channels, 3, stride=8 if i == 0 else 2, padding=1)
            for i in range(len(featmap_strides)))
        self.out_cls = nn.Conv2d(in_channels, 1, 1)
        self.out_obj = nn.Conv2d(in_channels, 1, 1)
        self.out_bbox = nn.Conv2d(in_channels, 4, 1)
        self.out_kpt_reg = nn.Conv2d(in_channels, num_keypoints * 2, 1)
        self.out_kpt_vis = nn.Conv2d(in_channels, num_keypoints, 1)
        self.test_cfg = dict(score_thr=0.01, nms_thr=0.65)

    def grid_priors(self, featmap_sizes, dtype, device):
        priors = []
        for (h, w), stride in zip(featmap_sizes, self.featmap_strides):
            shift_x = torch.arange(0, w, device=device).to(dtype) * stride
            shift_y = torch.arange(0, h, device=device).to(dtype) * stride
            yy, xx = torch.meshgrid(shift_y, shift_x, indexing='ij')
            priors.append(torch.stack([xx.reshape(-1), yy.reshape(-1)], dim=-1))
        return priors

    def forward(self, x):
        feats, feat = [], x
        for stem in self.stems:
            feat = torch.relu(stem(feat))
            feats.append(feat)
        cls_scores = [self.out_cls(f) for f in feats]
        objectnesses = [self.out_obj(f) for f in feats]
        bbox_preds = [self.out_bbox(f) for f in feats]
        kpt_offsets = [self.out_kpt_reg(f) for f in feats]
        kpt_vis = [self.out_kpt_vis(f) for f in feats]
        return self.predict(cls_scores, objectnesses, bbox_preds, kpt_offsets, kpt_vis, self.test_cfg)

    def predict(self, cls_scores, objectnesses, bbox_preds, kpt_offsets, kpt_vis, test_cfg):
        cfg = dict(test_cfg)
        featmap_sizes = [cls_score.shape[2:] for cls_score in cls_scores]
        self.mlvl_priors = self.grid_priors(
            featmap_sizes, dtype=cls_scores[0].dtype, device=cls_scores[0].device)
        flatten_priors = torch.cat(self.mlvl_priors)

        mlvl_strides = [
            flatten_priors.new_full((featmap_size.numel(), ),
                                    stride) for featmap_size, stride in zip(
                                        featmap_sizes, self.featmap_strides)
        ]
        flatten_stride = torch.cat(mlvl_strides)

        flatten_cls_scores = self._flatten_predictions(cls_scores).sigmoid()
        flatten_bbox_preds = self._flatten_predictions(bbox_preds)
        flatten_objectness = self._flatten_predictions(objectnesses).sigmoid()
        flatten_kpt_offsets = self._flatten_predictions(kpt_offsets)
        flatten_kpt_vis = self._flatten_predictions(kpt_vis).sigmoid()
        flatten_bbox_preds = self.decode_bbox(flatten_bbox_preds, flatten_priors, flatten_stride)
        flatten_kpt_reg = self.decode_kpt_reg(flatten_kpt_offsets, flatten_priors, flatten_stride)

        results_list = []
        for (bboxes, scores, objectness, kpt_reg, kpt_vis) in zip(
                flatten_bbox_preds, flatten_cls_scores, flatten_objectness,
                flatten_kpt_reg, flatten_kpt_vis):

            score_thr = cfg.get('score_thr', 0.01)
            scores *= objectness

            nms_pre = cfg.get('nms_pre', 100000)
            scores, labels = scores.max(1, keepdim=True)
            scores, _, keep_idxs_score, results = filter_scores_and_topk(
                scores, score_thr, nms_pre, results=dict(labels=labels[:, 0]))
            labels = results['labels']

            bboxes = bboxes[keep_idxs_score]
            kpt_vis = kpt_vis[keep_idxs_score]
            keypoints = kpt_reg[keep_idxs_score]

            if bboxes.numel() > 0:
                nms_thr = cfg.get('nms_thr', 1.0)
                if nms_thr < 1.0:
                    keep_idxs_nms = nms_torch(bboxes, scores, nms_thr)
                    bboxes = bboxes[keep_idxs_nms]
                    kpt_vis = kpt_vis[keep_idxs_nms]
                    keypoints = keypoints[keep_idxs_nms]
                    scores = scores[keep_idxs_nms]
            results_list.append((bboxes, scores, keypoints, kpt_vis))

        return (torch.cat([r[0] for r in results_list]), torch.cat([r[1] for r in results_list]),
                torch.cat([r[2] for r in results_list]), torch.cat([r[3] for r in results_list]))

    def decode_bbox(self, pred_bboxes, priors, stride):
        stride = stride.view(1, stride.size(0), 1)
        priors = priors.view(1, priors.size(0), 2)
        xys = (pred_bboxes[..., :2] * stride) + priors
        whs = pred_bboxes[..., 2:].exp() * stride
        tl_x = xys[..., 0] - whs[..., 0] / 2
        tl_y = xys[..., 1] - whs[..., 1] / 2
        br_x = xys[..., 0] + whs[..., 0] / 2
        br_y = xys[..., 1] + whs[..., 1] / 2
        return torch.stack([tl_x, tl_y, br_x, br_y], -1)

    def decode_kpt_reg(self, pred_kpt_offsets, priors, stride):
        stride = stride.view(1, stride.size(0), 1, 1)
        priors = priors.view(1, priors.size(0), 1, 2)
        pred_kpt_offsets = pred_kpt_offsets.reshape(
            *pred_kpt_offsets.shape[:-1], self.num_keypoints, 2)
        return pred_kpt_offsets * stride + priors

    def _flatten_predictions(self, preds):
        if len(preds) == 0:
            return None
        preds = [x.permute(0, 2, 3, 1).flatten(1, 2) for x in preds]
        return torch.cat(preds, dim=1)


def make_model():
    return YOLOXPoseHead().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(1, 3, 64, 128),)]


def probe_inputs():
    return other_inputs()
