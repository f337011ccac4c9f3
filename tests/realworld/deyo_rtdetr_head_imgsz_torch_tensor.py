"""DEYO (an ultralytics fork, YOLO anchors + RT-DETR decoder): the model passes `imgsz = x.shape[2:]` to
its head, which normalizes and rescales boxes with `torch.tensor(imgsz, device=...)[[1, 0, 1, 0]]`;
ONNX export warns "torch.tensor results are registered as constants in the trace" (the issue's log).

Source: https://github.com/ouyanghaodong/DEYO/issues/18
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-18"


def make_anchors(feats, strides, grid_cell_offset=0.5):
    anchor_points, stride_tensor = [], []
    dtype, device = feats[0].dtype, feats[0].device
    for i, stride in enumerate(strides):
        _, _, h, w = feats[i].shape
        sx = torch.arange(end=w, device=device, dtype=dtype) + grid_cell_offset
        sy = torch.arange(end=h, device=device, dtype=dtype) + grid_cell_offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        anchor_points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), stride, dtype=dtype, device=device))
    return torch.cat(anchor_points), torch.cat(stride_tensor)


def dist2bbox(distance, anchor_points, xywh=True, dim=-1):
    lt, rb = distance.chunk(2, dim)
    x1y1 = anchor_points - lt
    x2y2 = anchor_points + rb
    c_xy = (x1y1 + x2y2) / 2
    wh = x2y2 - x1y1
    return torch.cat((c_xy, wh), dim)


class DEYOHead(nn.Module):
    def __init__(self, ch=(8, 8), reg_max=4, nc=3, hd=16):
        super().__init__()
        self.nl, self.reg_max = len(ch), reg_max
        self.stride = torch.tensor([8.0, 16.0])
        self.cv2 = nn.ModuleList(nn.Conv2d(c, 4 * reg_max, 1) for c in ch)
        self.proj = nn.Conv1d(4 * reg_max, 4, 1)  # stands in for DFL
        self.query_pos_head = nn.Linear(4, hd)
        self.dec_score_head = nn.Linear(hd, nc)
        self.shape = None

    def _generate_anchors(self, x):
        for i in range(self.nl):
            x[i] = self.cv2[i](x[i])
        shape = x[0].shape  # BCHW
        x_cat = torch.cat([xi.view(shape[0], self.reg_max * 4, -1) for xi in x], 2)
        if self.shape != shape:
            self.anchors, self.strides = (x.transpose(0, 1) for x in make_anchors(x, self.stride, 0.5))
            self.shape = shape
        return dist2bbox(self.proj(x_cat), self.anchors.unsqueeze(0), xywh=True, dim=1) * self.strides

    def forward(self, x, batch=None, imgsz=None):
        dbox = self._generate_anchors(x)
        dbox = dbox.permute(0, 2, 1)
        dbox = dbox / torch.tensor(imgsz, device=dbox.device)[[1, 0, 1, 0]]
        dec_scores = self.dec_score_head(self.query_pos_head(dbox).relu())
        y = torch.cat((dbox, dec_scores.sigmoid()), -1)
        y[..., :4] = y[..., :4] * torch.tensor(imgsz, device=y.device)[[1, 0, 1, 0]]
        return y


class DEYOModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.p3 = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.p4 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.head = DEYOHead()

    def forward(self, x, batch=None):
        imgsz = x.shape[2:]
        f3 = self.p3(x)
        f4 = self.p4(f3)
        return self.head([f3, f4], batch, imgsz)


def make_model():
    return DEYOModel()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(3, 3, 128, 64),)]


def probe_inputs():
    return other_inputs()
