"""Darknet-style YOLO head written to be ONNX-exportable with dynamic input size "while not having to manually add
grid offsets or apply anchors": the decoding is a `@torch.jit.script` function `yolo_predict` (grid from
`torch.arange(nW)`, anchors divided by `nW * stride`, `nattr = int(nC / nA)`) called on the output of each yolo
layer's last convolution; the reporter says the ONNX export with dynamic input size fails.

Source: https://github.com/ultralytics/yolov5/issues/251
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
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
    def __init__(self, num_classes=3):
        super().__init__()
        self.strides = [32, 16, 8]
        self.scale_x_y = 1.0
        self.register_buffer("anchors", torch.tensor([[[116, 90], [156, 198], [373, 326]],
                                                      [[30, 61], [62, 45], [59, 119]],
                                                      [[10, 13], [16, 30], [33, 23]]]))
        no = 3 * (5 + num_classes)
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(16, 16, 3, 2, 1), nn.LeakyReLU(0.1))
        self.down8 = nn.Conv2d(16, 16, 3, 2, 1)
        self.down16 = nn.Conv2d(16, 16, 3, 2, 1)
        self.down32 = nn.Conv2d(16, 16, 3, 2, 1)
        self.heads = nn.ModuleList([nn.Conv2d(16, no, 1) for _ in range(3)])

    def forward(self, x):
        p8 = self.down8(self.stem(x))
        p16 = self.down16(p8)
        p32 = self.down32(p16)
        outs = []
        for i, f in enumerate([p32, p16, p8]):
            outs.append(yolo_predict(self.heads[i](f), self.anchors[i], self.strides[i], self.scale_x_y))
        return torch.cat(outs, 1)


def make_model():
    return Yolo().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 224),), (torch.randn(3, 3, 160, 128),)]


def probe_inputs():
    return other_inputs()
