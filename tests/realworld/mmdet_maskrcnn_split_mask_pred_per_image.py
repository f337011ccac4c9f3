"""Mask R-CNN mask head (mmdetection): the batched mask predictions are split back per image with
`num_mask_roi_per_img = [det_bbox.shape[0] for det_bbox in det_bboxes]` and `mask_pred.split(...)`;
the split sizes are frozen at trace time, so onnxruntime fails for another number of boxes
("split_size_sum (68) != split_dim_size (23)").

Source: https://github.com/pytorch/vision/issues/2994
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "shape_math"
DYNAMIC = {"mask_feats": {0: "num_rois"}, "det_bboxes": {0: "batch", 1: "num_dets"}}
BLIND = "domains-11"


class FCNMaskHead(nn.Module):
    def __init__(self, in_channels=8, num_classes=3):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.upsample = nn.ConvTranspose2d(in_channels, in_channels, 2, stride=2)
        self.conv_logits = nn.Conv2d(in_channels, num_classes, 1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = torch.relu(self.upsample(x))
        return self.conv_logits(x)


class MaskRoIHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask_head = FCNMaskHead()

    def forward(self, mask_feats, det_bboxes):
        mask_pred = self.mask_head(mask_feats)
        # split batch mask prediction back to each image
        num_mask_roi_per_img = [det_bbox.shape[0] for det_bbox in det_bboxes]
        mask_preds = mask_pred.split(num_mask_roi_per_img, 0)
        segm_results = []
        for i in range(len(mask_preds)):
            scores = det_bboxes[i][:, 4]
            segm_results.append(mask_preds[i].sigmoid() * scores[:, None, None, None])
        return torch.cat(segm_results, 0)


def make_model():
    return MaskRoIHead().eval()


def _inputs(batch, dets):
    return (torch.randn(batch * dets, 8, 7, 7), torch.rand(batch, dets, 5))


def example_inputs():
    return _inputs(2, 6)


def other_inputs():
    return [_inputs(3, 4), _inputs(1, 9)]


def probe_inputs():
    return other_inputs()
