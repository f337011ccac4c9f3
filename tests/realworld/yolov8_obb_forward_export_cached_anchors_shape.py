"""YOLOv8-OBB (Yolov8_obb_Prune_Track) rotated-box head exported with the user's `forward_export`: the
anchor points and strides are built by make_anchors from the feature-map sizes but cached on the module
and only rebuilt `if self.dynamic or self.shape != shape`; the reporter's exported ONNX decodes wrong
boxes (w, h values far too large) although the .pt model is correct.

Source: https://github.com/yzqxy/Yolov8_obb_Prune_Track/issues/28
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "shape_math"
DYNAMIC = {"p3": {0: "batch", 2: "h3", 3: "w3"}, "p4": {0: "batch", 2: "h4", 3: "w4"},
           "p5": {0: "batch", 2: "h5", 3: "w5"}}
BLIND = "domains-30"


def make_anchors(feats, strides, grid_cell_offset=0.5):
    """Generate anchors from features."""
    anchor_points, stride_tensor = [], []
    assert feats is not None
    dtype, device = feats[0].dtype, feats[0].device
    for i, stride in enumerate(strides):
        _, _, h, w = feats[i].shape
        sx = torch.arange(end=w, device=device, dtype=dtype) + grid_cell_offset  # shift x
        sy = torch.arange(end=h, device=device, dtype=dtype) + grid_cell_offset  # shift y
        sy, sx = torch.meshgrid(sy, sx, indexing='ij')
        anchor_points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), stride, dtype=dtype, device=device))
    return torch.cat(anchor_points), torch.cat(stride_tensor)


def dist2bbox(distance, anchor_points, xywh=True, dim=-1):
    """Transform distance(ltrb) to box(xywh or xyxy)."""
    lt, rb = distance.chunk(2, dim)
    x1y1 = anchor_points - lt
    x2y2 = anchor_points + rb
    if xywh:
        c_xy = (x1y1 + x2y2) / 2
        wh = x2y2 - x1y1
        return torch.cat((c_xy, wh), dim)  # xywh bbox
    return torch.cat((x1y1, x2y2), dim)  # xyxy bbox


class DFL(nn.Module):
    def __init__(self, c1=16):
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        x = torch.arange(c1, dtype=torch.float)
        self.conv.weight.data[:] = nn.Parameter(x.view(1, c1, 1, 1))
        self.c1 = c1

    def forward(self, x):
        b, c, a = x.shape  # batch, channels, anchors
        return self.conv(x.view(b, 4, self.c1, a).transpose(2, 1).softmax(1)).view(b, 4, a)


class Detect_v8(nn.Module):
    dynamic = False  # force grid reconstruction
    export = True
    shape = None
    anchors = torch.empty(0)  # init
    strides = torch.empty(0)  # init

    def __init__(self, nc=15, ch=(32, 64, 128)):
        super().__init__()
        self.nc = nc
        self.nl = len(ch)
        self.reg_max = 16
        self.theta = 1
        self.no_box = nc + self.reg_max * 4 + self.theta
        self.stride = torch.tensor([8., 16., 32.])
        c2, c3 = max((16, ch[0] // 4, self.reg_max * 4)), max(ch[0], self.nc)
        self.cv2 = nn.ModuleList(nn.Sequential(nn.Conv2d(x, c2, 3, padding=1), nn.SiLU(),
                                               nn.Conv2d(c2, 4 * self.reg_max, 1)) for x in ch)
        self.cv3 = nn.ModuleList(nn.Sequential(nn.Conv2d(x, c3, 3, padding=1), nn.SiLU(),
                                               nn.Conv2d(c3, self.nc, 1)) for x in ch)
        self.cv4 = nn.ModuleList(nn.Sequential(nn.Conv2d(x, c3, 3, padding=1), nn.SiLU(),
                                               nn.Conv2d(c3, self.theta, 1)) for x in ch)
        self.dfl = DFL(self.reg_max)

    def forward_export(self, x):
        shape = x[0].shape  # BCHW
        for i in range(self.nl):
            x[i] = torch.cat((self.cv2[i](x[i]), self.cv4[i](x[i]), self.cv3[i](x[i])), 1)
        if self.dynamic or self.shape != shape:
            self.anchors, self.strides = (x.transpose(0, 1) for x in make_anchors(x, self.stride, 0.5))
            self.shape = shape

        # dfl_box
        box, theta, cls = torch.cat([xi.view(shape[0], self.no_box, -1) for xi in x], 2).split(
            (self.reg_max * 4, self.theta, self.nc), 1)
        dbox = dist2bbox(self.dfl(box), self.anchors.unsqueeze(0), xywh=True, dim=1) * self.strides

        theta_pred = (theta.sigmoid() - 0.5) * math.pi  # [n_conf_thres, 1] θ ∈ [-pi/2, pi/2)
        N, _, Fsize = cls.shape
        cls_scores = cls.sigmoid().permute(0, 2, 1).reshape(N, Fsize, -1)
        bbox_preds = dbox.permute(0, 2, 1).reshape(N, Fsize, -1)
        angle_preds = theta_pred.permute(0, 2, 1).reshape(N, Fsize, -1)
        return torch.cat([bbox_preds, angle_preds, cls_scores], dim=-1)

    def forward(self, p3, p4, p5):
        return self.forward_export([p3, p4, p5])


def make_model():
    return Detect_v8().eval()


def _feats(b, h, w):
    return (torch.randn(b, 32, h // 8, w // 8), torch.randn(b, 64, h // 16, w // 16),
            torch.randn(b, 128, h // 32, w // 32))


def example_inputs():
    return _feats(1, 256, 256)


def other_inputs():
    return [_feats(2, 320, 192), _feats(1, 128, 384)]


def probe_inputs():
    return other_inputs()
