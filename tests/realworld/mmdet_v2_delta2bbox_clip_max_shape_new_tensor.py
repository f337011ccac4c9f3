"""mmdet v2 `delta2bbox` (DeltaXYWHBBoxCoder.decode of RetinaNet/RPN/Faster R-CNN heads) clips the decoded boxes to the
image with `max_shape = x1.new_tensor(max_shape)` built from the `img_meta['img_shape']` tuple and two `torch.where`s;
under `torch.onnx.is_in_onnx_export()` it instead calls `dynamic_clip_for_onnx` ("clip bboxes with dynamic `min` and
`max` for onnx"), because the eager tensor made from the Python image size is frozen into the exported graph.

Source: https://github.com/open-mmlab/mmdetection/blob/01fba5b5b42e088b1550dd7cf55a54d0614c608d/mmdet/core/bbox/coder/delta_xywh_bbox_coder.py
"""
import numpy as np
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-57"


def delta2bbox(rois,
               deltas,
               means=(0., 0., 0., 0.),
               stds=(1., 1., 1., 1.),
               max_shape=None,
               wh_ratio_clip=16 / 1000,
               clip_border=True):
    means = deltas.new_tensor(means).view(1, -1).repeat(1, deltas.size(-1) // 4)
    stds = deltas.new_tensor(stds).view(1, -1).repeat(1, deltas.size(-1) // 4)
    denorm_deltas = deltas * stds + means
    dx = denorm_deltas[..., 0::4]
    dy = denorm_deltas[..., 1::4]
    dw = denorm_deltas[..., 2::4]
    dh = denorm_deltas[..., 3::4]

    x1, y1 = rois[..., 0], rois[..., 1]
    x2, y2 = rois[..., 2], rois[..., 3]
    # Compute center of each roi
    px = ((x1 + x2) * 0.5).unsqueeze(-1).expand_as(dx)
    py = ((y1 + y2) * 0.5).unsqueeze(-1).expand_as(dy)
    # Compute width/height of each roi
    pw = (x2 - x1).unsqueeze(-1).expand_as(dw)
    ph = (y2 - y1).unsqueeze(-1).expand_as(dh)

    dx_width = pw * dx
    dy_height = ph * dy

    max_ratio = np.abs(np.log(wh_ratio_clip))
    dw = dw.clamp(min=-max_ratio, max=max_ratio)
    dh = dh.clamp(min=-max_ratio, max=max_ratio)
    # Use exp(network energy) to enlarge/shrink each roi
    gw = pw * dw.exp()
    gh = ph * dh.exp()
    # Use network energy to shift the center of each roi
    gx = px + dx_width
    gy = py + dy_height
    # Convert center-xy/width/height to top-left, bottom-right
    x1 = gx - gw * 0.5
    y1 = gy - gh * 0.5
    x2 = gx + gw * 0.5
    y2 = gy + gh * 0.5

    bboxes = torch.stack([x1, y1, x2, y2], dim=-1).view(deltas.size())

    if clip_border and max_shape is not None:
        # (mmdet: `if torch.onnx.is_in_onnx_export(): ... dynamic_clip_for_onnx(...)`; eager use goes on here)
        if not isinstance(max_shape, torch.Tensor):
            max_shape = x1.new_tensor(max_shape)
        max_shape = max_shape[..., :2].type_as(x1)
        if max_shape.ndim == 2:
            # with batch dimension
            assert bboxes.ndim == 3
            assert max_shape.size(0) == bboxes.size(0)

        min_xy = x1.new_tensor(0)
        max_xy = torch.cat(
            [max_shape] * (deltas.size(-1) // 2),
            dim=-1).flip(-1).unsqueeze(-2)
        bboxes = torch.where(bboxes < min_xy, min_xy, bboxes)
        bboxes = torch.where(bboxes > max_xy, max_xy, bboxes)

    return bboxes


class TinyRetinaHead(nn.Module):
    """Stride-8 single-level anchor head decoding boxes like RetinaHead._get_bboxes_single (one image)."""

    def __init__(self, stride=8, anchor_size=32.0):
        super().__init__()
        self.stride = stride
        self.anchor_size = anchor_size
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=stride, padding=1), nn.ReLU())
        self.retina_reg = nn.Conv2d(16, 4, 3, padding=1)

    def grid_anchors(self, featmap_size, device):
        feat_h, feat_w = featmap_size
        shift_x = torch.arange(0, feat_w, device=device) * self.stride
        shift_y = torch.arange(0, feat_h, device=device) * self.stride
        shift_yy, shift_xx = torch.meshgrid(shift_y, shift_x, indexing="ij")
        shift_xx, shift_yy = shift_xx.reshape(-1), shift_yy.reshape(-1)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1).float()
        half = self.anchor_size / 2
        base = torch.tensor([-half, -half, half, half], device=device) + self.stride / 2
        return shifts + base

    def forward(self, img):
        img_meta = dict(img_shape=(img.shape[2], img.shape[3], 3))
        feat = self.backbone(img)
        bbox_pred = self.retina_reg(feat)[0].permute(1, 2, 0).reshape(-1, 4)
        anchors = self.grid_anchors(feat.shape[-2:], img.device)
        bboxes = delta2bbox(anchors, bbox_pred, (0., 0., 0., 0.), (1., 1., 1., 1.),
                            max_shape=img_meta['img_shape'])
        return bboxes


def make_model():
    return TinyRetinaHead().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 128, 80),), (torch.randn(1, 3, 48, 160),)]


def probe_inputs():
    return other_inputs()
