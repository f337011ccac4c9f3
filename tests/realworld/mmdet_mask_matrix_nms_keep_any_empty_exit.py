"""SOLO instance-mask post-processing ending in mmdet's `mask_matrix_nms` (mmdet/models/layers/matrix_nms.py):
it returns early on `len(labels) == 0`, cuts with `len(sort_inds) > nms_pre`, filters with `keep = scores >=
filter_thr` / `if not keep.any(): return ...empty...` and `masks[keep]`. mmdeploy had to replace the whole
function (topk instead of sort + cut, no filtering, no empty exits) to export SOLO to ONNX/OpenVINO.

Source: https://github.com/open-mmlab/mmdeploy/pull/1454
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"mask_preds": {0: "num_inst", 1: "height", 2: "width"},
           "cls_scores": {0: "num_inst"},
           "cls_labels": {0: "num_inst"}}
BLIND = "domains-55"


def mask_matrix_nms(masks,
                    labels,
                    scores,
                    filter_thr=-1,
                    nms_pre=-1,
                    max_num=-1,
                    kernel='gaussian',
                    sigma=2.0,
                    mask_area=None):
    assert len(labels) == len(masks) == len(scores)
    if len(labels) == 0:
        return scores.new_zeros(0), labels.new_zeros(0), masks.new_zeros(
            0, *masks.shape[-2:]), labels.new_zeros(0)
    if mask_area is None:
        mask_area = masks.sum((1, 2)).float()
    else:
        assert len(masks) == len(mask_area)

    # sort and keep top nms_pre
    scores, sort_inds = torch.sort(scores, descending=True)

    keep_inds = sort_inds
    if nms_pre > 0 and len(sort_inds) > nms_pre:
        sort_inds = sort_inds[:nms_pre]
        keep_inds = keep_inds[:nms_pre]
        scores = scores[:nms_pre]
    masks = masks[sort_inds]
    mask_area = mask_area[sort_inds]
    labels = labels[sort_inds]

    num_masks = len(labels)
    flatten_masks = masks.reshape(num_masks, -1).float()
    # inter.
    inter_matrix = torch.mm(flatten_masks, flatten_masks.transpose(1, 0))
    expanded_mask_area = mask_area.expand(num_masks, num_masks)
    # Upper triangle iou matrix.
    iou_matrix = (inter_matrix /
                  (expanded_mask_area + expanded_mask_area.transpose(1, 0) -
                   inter_matrix)).triu(diagonal=1)
    # label_specific matrix.
    expanded_labels = labels.expand(num_masks, num_masks)
    # Upper triangle label matrix.
    label_matrix = (expanded_labels == expanded_labels.transpose(
        1, 0)).triu(diagonal=1)

    # IoU compensation
    compensate_iou, _ = (iou_matrix * label_matrix).max(0)
    compensate_iou = compensate_iou.expand(num_masks,
                                           num_masks).transpose(1, 0)

    # IoU decay
    decay_iou = iou_matrix * label_matrix

    # Calculate the decay_coefficient
    if kernel == 'gaussian':
        decay_matrix = torch.exp(-1 * sigma * (decay_iou**2))
        compensate_matrix = torch.exp(-1 * sigma * (compensate_iou**2))
        decay_coefficient, _ = (decay_matrix / compensate_matrix).min(0)
    elif kernel == 'linear':
        decay_matrix = (1 - decay_iou) / (1 - compensate_iou)
        decay_coefficient, _ = decay_matrix.min(0)
    else:
        raise NotImplementedError(
            f'{kernel} kernel is not supported in matrix nms!')
    # update the score.
    scores = scores * decay_coefficient

    if filter_thr > 0:
        keep = scores >= filter_thr
        keep_inds = keep_inds[keep]
        if not keep.any():
            return scores.new_zeros(0), labels.new_zeros(0), masks.new_zeros(
                0, *masks.shape[-2:]), labels.new_zeros(0)
        masks = masks[keep]
        scores = scores[keep]
        labels = labels[keep]

    # sort and keep top max_num
    scores, sort_inds = torch.sort(scores, descending=True)
    keep_inds = keep_inds[sort_inds]
    if max_num > 0 and len(sort_inds) > max_num:
        sort_inds = sort_inds[:max_num]
        keep_inds = keep_inds[:max_num]
        scores = scores[:max_num]
    masks = masks[sort_inds]
    labels = labels[sort_inds]

    return scores, labels, masks, keep_inds


class SOLOHeadPostProcess(nn.Module):
    """Tail of SOLOHead._predict_by_feat_single (test_cfg of solo_r50_fpn)."""

    def __init__(self, mask_thr=0.5, filter_thr=0.05, nms_pre=500, max_per_img=100,
                 kernel='gaussian', sigma=2.0):
        super().__init__()
        self.mask_thr = mask_thr
        self.filter_thr = filter_thr
        self.nms_pre = nms_pre
        self.max_per_img = max_per_img
        self.kernel = kernel
        self.sigma = sigma

    def forward(self, mask_preds, cls_scores, cls_labels):
        masks = mask_preds > self.mask_thr
        sum_masks = masks.sum((1, 2)).float()
        # maskness.
        mask_scores = (mask_preds * masks).sum((1, 2)) / sum_masks
        cls_scores = cls_scores * mask_scores
        scores, labels, _, keep_inds = mask_matrix_nms(
            masks,
            cls_labels,
            cls_scores,
            mask_area=sum_masks,
            nms_pre=self.nms_pre,
            max_num=self.max_per_img,
            kernel=self.kernel,
            sigma=self.sigma,
            filter_thr=self.filter_thr)
        mask_preds = mask_preds[keep_inds]
        return scores, labels, mask_preds


def make_model():
    return SOLOHeadPostProcess().eval()


def _inputs(n, h, w):
    mask_preds = torch.rand(n, h, w) * 0.5 + 0.3
    cls_scores = torch.rand(n) * 0.7 + 0.3
    cls_labels = torch.randint(0, 3, (n,))
    return (mask_preds, cls_scores, cls_labels)


def example_inputs():
    return _inputs(12, 40, 48)


def other_inputs():
    return [_inputs(20, 32, 56), _inputs(7, 64, 40)]


def probe_inputs():
    return other_inputs()
