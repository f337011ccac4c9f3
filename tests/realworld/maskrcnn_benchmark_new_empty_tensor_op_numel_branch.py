"""maskrcnn-benchmark Mask R-CNN: the mask head uses the library's `layers/misc.py` wrappers, whose `Conv2d.forward`
and `interpolate` check `if x.numel() > 0:` and otherwise build the empty output with the Python autograd function
`_NewEmptyTensorOp.apply(x, output_shape)`; exporting a fine-tuned model whose sample image gave no detections fails
with "ONNX export failed: Couldn't export Python operator _NewEmptyTensorOp" (the official weights, which detect
something on the sample, export).

Source: https://github.com/facebookresearch/maskrcnn-benchmark/issues/1039
"""
import math

import torch
from torch import nn
from torch.nn.modules.utils import _ntuple

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"roi_feats": {0: "num_rois"}}
BLIND = "domains-44"


class _NewEmptyTensorOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, new_shape):
        ctx.shape = x.shape
        return x.new_empty(new_shape)

    @staticmethod
    def backward(ctx, grad):
        shape = ctx.shape
        return _NewEmptyTensorOp.apply(grad, shape), None


class Conv2d(torch.nn.Conv2d):
    def forward(self, x):
        if x.numel() > 0:
            return super(Conv2d, self).forward(x)
        # get output shape

        output_shape = [
            (i + 2 * p - (di * (k - 1) + 1)) // d + 1
            for i, p, di, k, d in zip(
                x.shape[-2:], self.padding, self.dilation, self.kernel_size, self.stride
            )
        ]
        output_shape = [x.shape[0], self.weight.shape[0]] + output_shape
        return _NewEmptyTensorOp.apply(x, output_shape)


def interpolate(
    input, size=None, scale_factor=None, mode="nearest", align_corners=None
):
    if input.numel() > 0:
        return torch.nn.functional.interpolate(
            input, size, scale_factor, mode, align_corners
        )

    def _check_size_scale_factor(dim):
        if size is None and scale_factor is None:
            raise ValueError("either size or scale_factor should be defined")
        if size is not None and scale_factor is not None:
            raise ValueError("only one of size or scale_factor should be defined")

    def _output_size(dim):
        _check_size_scale_factor(dim)
        if size is not None:
            return size
        scale_factors = _ntuple(dim)(scale_factor)
        # math.floor might return float in py2.7
        return [
            int(math.floor(input.size(i + 2) * scale_factors[i])) for i in range(dim)
        ]

    output_shape = tuple(_output_size(2))
    output_shape = input.shape[:-2] + output_shape
    return _NewEmptyTensorOp.apply(input, output_shape)


class MaskRCNNHeads(nn.Module):
    """Box scoring on the pooled RoI features, then the mask branch on the kept detections."""

    def __init__(self, in_channels=16, score_thresh=0.5):
        super().__init__()
        self.cls_score = nn.Linear(in_channels * 7 * 7, 1)
        nn.init.normal_(self.cls_score.weight, std=0.01)
        nn.init.constant_(self.cls_score.bias, -1.0)
        self.score_thresh = score_thresh
        self.mask_fcn1 = Conv2d(in_channels, in_channels, 3, stride=1, padding=1)
        self.mask_fcn2 = Conv2d(in_channels, in_channels, 3, stride=1, padding=1)
        self.mask_fcn_logits = Conv2d(in_channels, 1, 1, 1, 0)

    def forward(self, roi_feats):
        scores = torch.sigmoid(self.cls_score(roi_feats.flatten(1))).squeeze(1)
        keep = scores > self.score_thresh
        x = roi_feats[keep]
        x = nn.functional.relu(self.mask_fcn1(x))
        x = nn.functional.relu(self.mask_fcn2(x))
        x = interpolate(x, scale_factor=2, mode="nearest")
        mask_prob = self.mask_fcn_logits(x).sigmoid()
        return scores[keep], mask_prob


def make_model():
    return MaskRCNNHeads().eval()


def example_inputs():
    # the fine-tuned model finds nothing on the sample image: no RoI passes the score threshold
    return (torch.zeros(6, 16, 7, 7),)


def other_inputs():
    return [(torch.randn(9, 16, 7, 7) * 4,), (torch.randn(4, 16, 7, 7) * 4,)]


def probe_inputs():
    return other_inputs()
