"""Darknet/YOLOv3-style head decoding written as a `@torch.jit.script` function (`nattr = int(nC / nA)`, grids from
`torch.arange(nW)`, anchors divided by `nW * stride`) so that the ONNX model follows a dynamic input size; the
report says the ONNX export of this scripted decoding fails.

Source: https://github.com/ultralytics/yolov5/issues/251
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-9"


@torch.jit.script
def yolo_predict(pred, anchors, stride: int, scale_x_y: float):
    #transpose
    nA = anchors.size(0)
    nB, nC, nH, nW = pred.size()
    nattr = int(nC / nA)
    pred = pred.view(nB, nA, nattr, nH, nW).permute(0, 1, 3, 4, 2).contiguous()

    #make grid
    grid_x = torch.arange(nW).view(1, 1, 1, nW)
    grid_y = torch.arange(nH).view(1, 1, nH, 1)
    anchor_w = anchors[:, 0].view(1, nA, 1, 1).float() / (nW * stride)
    anchor_h = anchors[:, 1].view(1, nA, 1, 1).float() / (nH * stride)

    #apply grid
    x = pred[..., 0]
    y = pred[..., 1]
    w = pred[..., 2]
    h = pred[..., 3]
    p = pred[..., 4:]
    bx = ((torch.sigmoid(x) - 0.5) * scale_x_y + 0.5 + grid_x) / nW
    by = ((torch.sigmoid(y) - 0.5) * scale_x_y + 0.5 + grid_y) / nH
    bw = torch.exp(w) * anchor_w
    bh = torch.exp(h) * anchor_h
    bp = torch.sigmoid(p)
    preds = torch.stack([bx, by, bw, bh], -1)
    preds = torch.cat([preds, bp], -1)
    preds = preds.view(nB, -1, nattr)

    return preds


class Yolo(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.nattr = 5 + num_classes
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 16, 3, 2, 1),
                                      nn.LeakyReLU(0.1), nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.1))
        self.down = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(32, 32, 3, 2, 1),
                                  nn.LeakyReLU(0.1))
        self.head8 = nn.Conv2d(32, 3 * self.nattr, 1)
        self.head32 = nn.Conv2d(32, 3 * self.nattr, 1)
        self.register_buffer("anchors8", torch.tensor([[10, 13], [16, 30], [33, 23]]))
        self.register_buffer("anchors32", torch.tensor([[116, 90], [156, 198], [373, 326]]))

    def forward(self, img):
        f8 = self.backbone(img)
        f32 = self.down(f8)
        p8 = yolo_predict(self.head8(f8), self.anchors8, 8, 1.0)
        p32 = yolo_predict(self.head32(f32), self.anchors32, 32, 1.0)
        return torch.cat([p8, p32], 1)


def make_model():
    return Yolo().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(2, 3, 320, 192),), (torch.randn(1, 3, 416, 416),)]


def probe_inputs():
    return other_inputs()
