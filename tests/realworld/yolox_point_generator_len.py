"""mmdet MlvlPointGenerator (YOLOX priors): `_meshgrid` repeats by `len(x)` and `with_stride` builds
`shift_xx.new_full((len(shift_xx), ), stride_w)`; the YOLOX pytorch2onnx export warns "Using len to get tensor
shape might cause the trace to be incorrect" on exactly these lines.

Source: https://github.com/open-mmlab/mmdetection/issues/6036
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-1"


class YOLOXPriors(nn.Module):
    def __init__(self, strides=((8, 8),), offset=0.):
        super().__init__()
        self.strides = strides
        self.offset = offset
        self.stem = nn.Conv2d(3, 4, 3, stride=8, padding=1)

    def _meshgrid(self, x, y, row_major=True):
        yy = y.view(-1, 1).repeat(1, len(x)).view(-1)
        xx = x.repeat(len(y))
        if row_major:
            return xx, yy
        return yy, xx

    def single_level_grid_priors(self, featmap_size, level_idx, dtype=torch.float32, device='cpu', with_stride=False):
        feat_h, feat_w = featmap_size
        stride_w, stride_h = self.strides[level_idx]
        shift_x = (torch.arange(0., feat_w, device=device) + self.offset) * stride_w
        shift_x = shift_x.to(dtype)
        shift_y = (torch.arange(0., feat_h, device=device) + self.offset) * stride_h
        shift_y = shift_y.to(dtype)
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        if not with_stride:
            shifts = torch.stack([shift_xx, shift_yy], dim=-1)
        else:
            stride_w = shift_xx.new_full((len(shift_xx), ), stride_w).to(dtype)
            stride_h = shift_xx.new_full((len(shift_yy), ), stride_h).to(dtype)
            shifts = torch.stack([shift_xx, shift_yy, stride_w, stride_h], dim=-1)
        all_points = shifts.to(device)
        return all_points

    def forward(self, img):
        feat = self.stem(img)
        priors = self.single_level_grid_priors(feat.shape[2:], 0, dtype=feat.dtype, device=feat.device, with_stride=True)
        flat = feat.permute(0, 2, 3, 1).reshape(feat.shape[0], -1, 4)
        xys = flat[..., :2] * priors[:, 2:] + priors[:, :2]
        whs = flat[..., 2:].exp() * priors[:, 2:]
        return torch.cat([xys - whs / 2, xys + whs / 2], dim=-1)


def make_model():
    return YOLOXPriors()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(1, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()
