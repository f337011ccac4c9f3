"""mmdet AnchorGenerator: `feat_h = int(feat_h)` / `feat_w = int(feat_w)` on the feature-map size and
`x.repeat(len(y))` in `_meshgrid`; the pytorch2onnx export of YOLOv3 warns "Converting a tensor to a Python
integer might cause the trace to be incorrect", so the anchor grid is frozen at the export image size.

Source: https://github.com/open-mmlab/mmdetection/issues/4102
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-1"


class AnchorHead(nn.Module):
    def __init__(self, stride=8):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=stride, padding=1)
        self.stride = stride
        self.register_buffer("base_anchors", torch.tensor([[-8., -8., 8., 8.], [-16., -8., 16., 8.], [-8., -16., 8., 16.]]))

    def _meshgrid(self, x, y, row_major=True):
        xx = x.repeat(len(y))
        yy = y.view(-1, 1).repeat(1, len(x)).view(-1)
        if row_major:
            return xx, yy
        return yy, xx

    def single_level_grid_anchors(self, base_anchors, featmap_size, stride=(16, 16), device='cpu'):
        feat_h, feat_w = featmap_size
        # convert Tensor to int, so that we can covert to ONNX correctlly
        feat_h = int(feat_h)
        feat_w = int(feat_w)
        shift_x = torch.arange(0, feat_w, device=device) * stride[0]
        shift_y = torch.arange(0, feat_h, device=device) * stride[1]
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1)
        shifts = shifts.type_as(base_anchors)
        all_anchors = base_anchors[None, :, :] + shifts[:, None, :]
        all_anchors = all_anchors.view(-1, 4)
        return all_anchors

    def forward(self, img):
        feat = self.conv(img)
        featmap_size = feat.size()[-2:]
        anchors = self.single_level_grid_anchors(self.base_anchors, featmap_size, (self.stride, self.stride), device=img.device)
        scores = feat.permute(0, 2, 3, 1).reshape(img.shape[0], -1, 8).sigmoid()
        return anchors, scores


def make_model():
    return AnchorHead()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(1, 3, 128, 160),)]


def probe_inputs():
    return other_inputs()
