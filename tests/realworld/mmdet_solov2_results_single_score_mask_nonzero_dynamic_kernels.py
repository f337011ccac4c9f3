"""SOLOv2 head post-processing (mmdet `SOLOV2Head._get_results_single`): the grid cells above `score_thr`
are picked with `cls_scores[score_mask]` / `score_mask.nonzero()` (with an early `return empty_results` when
none pass), the per-level strides are written with slice set-items driven by `lvl_interval` tensors, the
picked dynamic kernels are convolved with `F.conv2d(mask_feats, kernel_preds)`, and instances are dropped
again with `keep = sum_masks > strides` / `if keep.sum() == 0`. mmdeploy had to rewrite this function
(mask with `where` instead of filtering, "Rewrite strides to avoid set_items") to export SOLOv2.

Source: https://github.com/open-mmlab/mmdeploy/pull/1521
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"mask_feats": {2: "height", 3: "width"}}
BLIND = "domains-42"


class SOLOV2Head(nn.Module):
    def __init__(self, num_classes=4, strides=(8, 16, 32), num_grids=(8, 6, 4), mask_stride=4,
                 dynamic_conv_size=1, score_thr=0.1, mask_thr=0.5):
        super().__init__()
        self.num_classes = num_classes
        self.strides = strides
        self.num_grids = num_grids
        self.num_levels = len(strides)
        self.mask_stride = mask_stride
        self.dynamic_conv_size = dynamic_conv_size
        self.score_thr = score_thr
        self.mask_thr = mask_thr

    def _get_results_single(self, kernel_preds, cls_scores, mask_feats, img_shape):

        def empty_results(cls_scores, ori_shape):
            """Generate a empty results."""
            scores = cls_scores.new_ones(0)
            masks = cls_scores.new_zeros(0, *ori_shape)
            labels = cls_scores.new_ones(0)
            return masks, scores, labels

        assert len(kernel_preds) == len(cls_scores)

        featmap_size = mask_feats.size()[-2:]

        # overall info
        h, w = img_shape
        upsampled_size = (featmap_size[0] * self.mask_stride,
                          featmap_size[1] * self.mask_stride)

        # process.
        score_mask = (cls_scores > self.score_thr)
        cls_scores = cls_scores[score_mask]
        if len(cls_scores) == 0:
            return empty_results(cls_scores, img_shape)

        # cate_labels & kernel_preds
        inds = score_mask.nonzero()
        cls_labels = inds[:, 1]
        kernel_preds = kernel_preds[inds[:, 0]]

        # trans vector.
        lvl_interval = cls_labels.new_tensor(self.num_grids).pow(2).cumsum(0)
        strides = kernel_preds.new_ones(lvl_interval[-1])

        strides[:lvl_interval[0]] *= self.strides[0]
        for lvl in range(1, self.num_levels):
            strides[lvl_interval[lvl -
                                 1]:lvl_interval[lvl]] *= self.strides[lvl]
        strides = strides[inds[:, 0]]

        # mask encoding.
        kernel_preds = kernel_preds.view(
            kernel_preds.size(0), -1, self.dynamic_conv_size,
            self.dynamic_conv_size)
        mask_preds = F.conv2d(
            mask_feats, kernel_preds, stride=1).squeeze(0).sigmoid()
        # mask.
        masks = mask_preds > self.mask_thr
        sum_masks = masks.sum((1, 2)).float()
        keep = sum_masks > strides
        if keep.sum() == 0:
            return empty_results(cls_scores, img_shape)
        masks = masks[keep]
        mask_preds = mask_preds[keep]
        sum_masks = sum_masks[keep]
        cls_scores = cls_scores[keep]
        cls_labels = cls_labels[keep]

        # maskness.
        mask_scores = (mask_preds * masks).sum((1, 2)) / sum_masks
        cls_scores *= mask_scores

        mask_preds = F.interpolate(
            mask_preds.unsqueeze(0), size=upsampled_size,
            mode='bilinear')[:, :, :h, :w].squeeze(0)
        masks = mask_preds > self.mask_thr
        return masks.float(), cls_scores, cls_labels

    def forward(self, kernel_preds, cls_scores, mask_feats):
        img_shape = (mask_feats.shape[2] * self.mask_stride, mask_feats.shape[3] * self.mask_stride)
        return self._get_results_single(kernel_preds, cls_scores, mask_feats, img_shape)


def make_model():
    return SOLOV2Head().eval()


def _inputs(h, w, hi=0.3):
    n = 8 * 8 + 6 * 6 + 4 * 4
    return (torch.randn(n, 16), torch.rand(n, 4) * hi, torch.randn(1, 16, h, w))


def example_inputs():
    return _inputs(24, 32)


def other_inputs():
    return [_inputs(20, 28), _inputs(30, 18), _inputs(16, 16, hi=0.05)]


def probe_inputs():
    return other_inputs()
