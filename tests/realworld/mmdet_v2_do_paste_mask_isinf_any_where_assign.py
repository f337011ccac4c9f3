"""mmdet v2 FCNMaskHead `_do_paste_mask`: after building the normalized sampling coordinates the eager path runs
`if torch.isinf(img_x).any(): inds = torch.where(torch.isinf(img_x)); img_x[inds] = 0` (and the same for img_y); the
code skips that block under `if not torch.onnx.is_in_onnx_export():` with the comment "IsInf op is not supported with
ONNX<=1.7.0", i.e. the eager data-dependent check is what export could not follow.

Source: https://github.com/open-mmlab/mmdetection/blob/v2.28.2/mmdet/models/roi_heads/mask_heads/fcn_mask_head.py
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "tensor_data"
DYNAMIC = {"mask_pred": {0: "num_dets"}, "det_bboxes": {0: "num_dets"}, "img": {2: "height", 3: "width"}}
BLIND = "domains-57"


def _do_paste_mask(masks, boxes, img_h, img_w, skip_empty=True):
    """Paste instance masks acoording to boxes (modified from detectron2)."""
    device = masks.device
    if skip_empty:
        x0_int, y0_int = torch.clamp(
            boxes.min(dim=0).values.floor()[:2] - 1,
            min=0).to(dtype=torch.int32)
        x1_int = torch.clamp(
            boxes[:, 2].max().ceil() + 1, max=img_w).to(dtype=torch.int32)
        y1_int = torch.clamp(
            boxes[:, 3].max().ceil() + 1, max=img_h).to(dtype=torch.int32)
    else:
        x0_int, y0_int = 0, 0
        x1_int, y1_int = img_w, img_h
    x0, y0, x1, y1 = torch.split(boxes, 1, dim=1)  # each is Nx1

    N = masks.shape[0]

    img_y = torch.arange(y0_int, y1_int, device=device).to(torch.float32) + 0.5
    img_x = torch.arange(x0_int, x1_int, device=device).to(torch.float32) + 0.5
    img_y = (img_y - y0) / (y1 - y0) * 2 - 1
    img_x = (img_x - x0) / (x1 - x0) * 2 - 1
    # img_x, img_y have shapes (N, w), (N, h)
    # (mmdet wraps the next block in `if not torch.onnx.is_in_onnx_export():`,
    #  "IsInf op is not supported with ONNX<=1.7.0"; eager use runs it)
    if torch.isinf(img_x).any():
        inds = torch.where(torch.isinf(img_x))
        img_x[inds] = 0
    if torch.isinf(img_y).any():
        inds = torch.where(torch.isinf(img_y))
        img_y[inds] = 0

    gx = img_x[:, None, :].expand(N, img_y.size(1), img_x.size(1))
    gy = img_y[:, :, None].expand(N, img_y.size(1), img_x.size(1))
    grid = torch.stack([gx, gy], dim=3)

    img_masks = F.grid_sample(
        masks.to(dtype=torch.float32), grid, align_corners=False)

    if skip_empty:
        return img_masks[:, 0], (slice(y0_int, y1_int), slice(x0_int, x1_int))
    else:
        return img_masks[:, 0], ()


class MaskPaste(nn.Module):
    """The paste step of FCNMaskHead.get_seg_masks on GPU (whole image, skip_empty=False)."""

    def __init__(self, mask_thr_binary=0.5):
        super().__init__()
        self.mask_thr_binary = mask_thr_binary

    def forward(self, mask_pred, det_bboxes, img):
        img_h, img_w = img.shape[-2:]
        masks_chunk, spatial_inds = _do_paste_mask(
            mask_pred.sigmoid(), det_bboxes, img_h, img_w, skip_empty=False)
        return masks_chunk >= self.mask_thr_binary


def _boxes(n, h, w, degenerate=False):
    xy = torch.rand(n, 2) * torch.tensor([w / 2, h / 2])
    wh = torch.rand(n, 2) * torch.tensor([w / 2, h / 2]) + 4
    boxes = torch.cat([xy, xy + wh], dim=1)
    if degenerate:
        boxes[0, 2] = boxes[0, 0]  # zero-width box -> inf coordinates
    return boxes


def make_model():
    return MaskPaste().eval()


def example_inputs():
    return (torch.randn(3, 1, 28, 28), _boxes(3, 64, 80), torch.randn(1, 3, 64, 80))


def other_inputs():
    return [
        (torch.randn(5, 1, 28, 28), _boxes(5, 96, 72, degenerate=True), torch.randn(1, 3, 96, 72)),
        (torch.randn(2, 1, 28, 28), _boxes(2, 48, 100), torch.randn(1, 3, 48, 100)),
    ]


def probe_inputs():
    return other_inputs()
