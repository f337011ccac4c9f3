"""YOLO detect head exported with half=True and dynamic=True: make_anchors builds the anchor grid with
`torch.arange(end=w, device=device, dtype=dtype)` in float16, which becomes an ONNX Range on float16 that
onnxruntime rejects ("Type 'tensor(float16)' of input parameter ... of operator (Range) ... is invalid").

Source: https://github.com/ultralytics/ultralytics/issues/18470
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-11"


def make_anchors(feats, strides, grid_cell_offset=0.5):
    """Generate anchors from features."""
    anchor_points, stride_tensor = [], []
    assert feats is not None
    dtype, device = feats[0].dtype, feats[0].device
    for i, stride in enumerate(strides):
        h, w = feats[i].shape[2:] if isinstance(feats, list) else (int(feats[i][0]), int(feats[i][1]))
        sx = torch.arange(end=w, device=device, dtype=dtype) + grid_cell_offset  # shift x
        sy = torch.arange(end=h, device=device, dtype=dtype) + grid_cell_offset  # shift y
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
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
        return torch.cat((c_xy, wh), dim)
    return torch.cat((x1y1, x2y2), dim)


class Detect(nn.Module):
    dynamic = True  # set by the exporter for dynamic=True
    shape = None

    def __init__(self, nc=4, ch=(8, 16)):
        super().__init__()
        self.nc = nc
        self.no = nc + 4
        self.stride = torch.tensor([4.0, 8.0])
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.SiLU(), nn.Conv2d(8, 8, 3, 2, 1), nn.SiLU())
        self.down = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.SiLU())
        self.cv = nn.ModuleList(nn.Conv2d(c, self.no, 1) for c in ch)

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.down(p3)
        x = [self.cv[0](p3), self.cv[1](p4)]
        shape = x[0].shape  # BCHW
        x_cat = torch.cat([xi.view(shape[0], self.no, -1) for xi in x], 2)
        if self.dynamic or self.shape != shape:
            self.anchors, self.strides = (x.transpose(0, 1) for x in make_anchors(x, self.stride, 0.5))
            self.shape = shape
        box, cls = x_cat.split((4, self.nc), 1)
        dbox = dist2bbox(box, self.anchors.unsqueeze(0), xywh=True, dim=1) * self.strides
        return torch.cat((dbox, cls.sigmoid()), 1)


def make_model():
    return Detect().half().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64).half(),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 64).half(),), (torch.randn(1, 3, 32, 80).half(),)]


def probe_inputs():
    return other_inputs()
