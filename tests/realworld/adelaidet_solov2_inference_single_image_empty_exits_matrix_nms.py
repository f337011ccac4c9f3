"""AdelaiDet SOLOv2 inference (`SOLOv2.inference_single_image`): category scores are thresholded
(`cate_preds[inds]`), then the head returns early `if len(cate_scores) == 0` / `if keep.sum() == 0`,
builds per-level strides with `new_ones(size_trans[-1])` and Python slices, filters masks by area, applies
matrix NMS, keeps the top `max_per_img` and resizes the masks to the image size; converting SOLOv2 to ONNX
with the repository's (FCOS) export script fails with errors.
(Backbone and heads are replaced by their outputs; the Instances result is returned as a tuple.)

Source: https://github.com/aim-uofa/AdelaiDet/issues/280
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {2: "height", 3: "width"}, "seg_preds": {2: "f_h", 3: "f_w"}}
BLIND = "domains-74"


def matrix_nms(cate_labels, seg_masks, sum_masks, cate_scores, sigma=2.0, kernel='gaussian'):
    n_samples = len(cate_labels)
    if n_samples == 0:
        return []

    seg_masks = seg_masks.reshape(n_samples, -1).float()
    # inter.
    inter_matrix = torch.mm(seg_masks, seg_masks.transpose(1, 0))
    # union.
    sum_masks_x = sum_masks.expand(n_samples, n_samples)
    # iou.
    iou_matrix = (inter_matrix / (sum_masks_x + sum_masks_x.transpose(1, 0) - inter_matrix)).triu(diagonal=1)
    # label_specific matrix.
    cate_labels_x = cate_labels.expand(n_samples, n_samples)
    label_matrix = (cate_labels_x == cate_labels_x.transpose(1, 0)).float().triu(diagonal=1)

    # IoU compensation
    compensate_iou, _ = (iou_matrix * label_matrix).max(0)
    compensate_iou = compensate_iou.expand(n_samples, n_samples).transpose(1, 0)

    # IoU decay / soft nms
    delay_iou = iou_matrix * label_matrix

    # matrix nms
    if kernel == 'linear':
        delay_matrix = (1 - delay_iou) / (1 - compensate_iou)
        delay_coefficient, _ = delay_matrix.min(0)
    else:
        delay_matrix = torch.exp(-1 * sigma * (delay_iou ** 2))
        compensate_matrix = torch.exp(-1 * sigma * (compensate_iou ** 2))
        delay_coefficient, _ = (delay_matrix / compensate_matrix).min(0)

    # update the score.
    cate_scores_update = cate_scores * delay_coefficient

    return cate_scores_update


class SOLOv2Inference(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_grids = [8, 6, 4]
        self.instance_strides = [8, 16, 32]
        self.score_threshold = 0.1
        self.mask_threshold = 0.5
        self.update_threshold = 0.05
        self.max_before_nms = 500
        self.max_per_img = 100
        self.nms_type = "matrix"
        self.nms_sigma = 2
        self.nms_kernel = "gaussian"

    def forward(self, image, cate_preds, kernel_preds, seg_preds):
        cur_size = tuple(image.shape[-2:])
        ori_size = cur_size
        return self.inference_single_image(cate_preds, kernel_preds, seg_preds, cur_size, ori_size)

    def inference_single_image(self, cate_preds, kernel_preds, seg_preds, cur_size, ori_size):
        # overall info.
        h, w = cur_size
        f_h, f_w = seg_preds.size()[-2:]
        ratio = math.ceil(h/f_h)
        upsampled_size_out = (int(f_h*ratio), int(f_w*ratio))

        # process.
        inds = (cate_preds > self.score_threshold)
        cate_scores = cate_preds[inds]
        if len(cate_scores) == 0:
            return torch.tensor([]), torch.tensor([]), torch.tensor([])

        # cate_labels & kernel_preds
        inds = inds.nonzero()
        cate_labels = inds[:, 1]
        kernel_preds = kernel_preds[inds[:, 0]]

        # trans vector.
        size_trans = cate_labels.new_tensor(self.num_grids).pow(2).cumsum(0)
        strides = kernel_preds.new_ones(size_trans[-1])

        n_stage = len(self.num_grids)
        strides[:size_trans[0]] *= self.instance_strides[0]
        for ind_ in range(1, n_stage):
            strides[size_trans[ind_ - 1]:size_trans[ind_]] *= self.instance_strides[ind_]
        strides = strides[inds[:, 0]]

        # mask encoding.
        N, I = kernel_preds.shape
        kernel_preds = kernel_preds.view(N, I, 1, 1)
        seg_preds = F.conv2d(seg_preds, kernel_preds, stride=1).squeeze(0).sigmoid()

        # mask.
        seg_masks = seg_preds > self.mask_threshold
        sum_masks = seg_masks.sum((1, 2)).float()

        # filter.
        keep = sum_masks > strides
        if keep.sum() == 0:
            return torch.tensor([]), torch.tensor([]), torch.tensor([])

        seg_masks = seg_masks[keep, ...]
        seg_preds = seg_preds[keep, ...]
        sum_masks = sum_masks[keep]
        cate_scores = cate_scores[keep]
        cate_labels = cate_labels[keep]

        # mask scoring.
        seg_scores = (seg_preds * seg_masks.float()).sum((1, 2)) / sum_masks
        cate_scores *= seg_scores

        # sort and keep top nms_pre
        sort_inds = torch.argsort(cate_scores, descending=True)
        if len(sort_inds) > self.max_before_nms:
            sort_inds = sort_inds[:self.max_before_nms]
        seg_masks = seg_masks[sort_inds, :, :]
        seg_preds = seg_preds[sort_inds, :, :]
        sum_masks = sum_masks[sort_inds]
        cate_scores = cate_scores[sort_inds]
        cate_labels = cate_labels[sort_inds]

        if self.nms_type == "matrix":
            # matrix nms & filter.
            cate_scores = matrix_nms(cate_labels, seg_masks, sum_masks, cate_scores,
                                     sigma=self.nms_sigma, kernel=self.nms_kernel)
            keep = cate_scores >= self.update_threshold
        else:
            raise NotImplementedError

        if keep.sum() == 0:
            return torch.tensor([]), torch.tensor([]), torch.tensor([])

        seg_preds = seg_preds[keep, :, :]
        cate_scores = cate_scores[keep]
        cate_labels = cate_labels[keep]

        # sort and keep top_k
        sort_inds = torch.argsort(cate_scores, descending=True)
        if len(sort_inds) > self.max_per_img:
            sort_inds = sort_inds[:self.max_per_img]
        seg_preds = seg_preds[sort_inds, :, :]
        cate_scores = cate_scores[sort_inds]
        cate_labels = cate_labels[sort_inds]

        # reshape to original size.
        seg_preds = F.interpolate(seg_preds.unsqueeze(0),
                                  size=upsampled_size_out,
                                  mode='bilinear')[:, :, :h, :w]
        seg_masks = F.interpolate(seg_preds,
                                  size=ori_size,
                                  mode='bilinear').squeeze(0)
        seg_masks = seg_masks > self.mask_threshold

        return cate_scores, cate_labels, seg_masks


def make_model():
    return SOLOv2Inference().eval()


def _inputs(h, w):
    s = 8 * 8 + 6 * 6 + 4 * 4
    return (torch.rand(1, 3, h, w), torch.rand(s, 5) * 0.12, torch.randn(s, 16),
            torch.randn(1, 16, h // 4, w // 4))


def example_inputs():
    return _inputs(96, 128)


def other_inputs():
    return [_inputs(128, 96), _inputs(64, 160)]


def probe_inputs():
    return other_inputs()
