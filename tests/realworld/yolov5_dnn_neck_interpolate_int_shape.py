"""YOLOv5 backbone/neck rewritten for OpenCV-DNN/ONNX (hpc203/yolov5-dnn-cpp-python-v2): the PANet upsampling is
`F.interpolate(xRt2, size=(int(xRt2.shape[2] * 2), int(xRt2.shape[3] * 2)), mode='nearest')`; torch.onnx.export
emits "TracerWarning: Converting a tensor to a Python integer ... will be treated as a constant" at that line and
the user asks whether it affects inference (the maintainer answers that it does not).

Source: https://github.com/hpc203/yolov5-dnn-cpp-python-v2/issues/11
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-11"


class Conv(nn.Module):
    # Standard convolution
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Focus(nn.Module):
    # Focus wh information into c-space
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = Conv(c1 * 4, c2, k, s)

    def forward(self, x):  # x(b,c,w,h) -> y(b,4c,w/2,h/2)
        return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))


class C3(nn.Module):
    # CSP Bottleneck with 3 convolutions (one bottleneck, trimmed)
    def __init__(self, c1, c2, n=1, shortcut=True):
        super().__init__()
        c_ = c2 // 2
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c1, c_, 1, 1)
        self.cv3 = Conv(2 * c_, c2, 1)
        self.m = Conv(c_, c_, 3, 1)
        self.add = shortcut

    def forward(self, x):
        y = self.cv1(x)
        y = y + self.m(y) if self.add else self.m(y)
        return self.cv3(torch.cat((y, self.cv2(x)), dim=1))


class My_YOLO_backbone_head(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq0_Focus = Focus(3, 16, 3)
        self.seq1_Conv = Conv(16, 32, 3, 2)
        self.seq2_C3 = C3(32, 32, 1)
        self.seq3_Conv = Conv(32, 64, 3, 2)
        self.seq4_C3 = C3(64, 64, 3)
        self.seq5_Conv = Conv(64, 128, 3, 2)
        self.seq6_C3 = C3(128, 128, 3)
        self.seq7_Conv = Conv(128, 256, 3, 2)
        self.seq8_SPP = Conv(256, 256, 1, 1)
        self.seq9_C3 = C3(256, 256, 1, False)
        self.seq10_Conv = Conv(256, 128, 1, 1)
        self.seq13_C3 = C3(256, 128, 1, False)
        self.seq14_Conv = Conv(128, 64, 1, 1)
        self.seq17_C3 = C3(128, 64, 1, False)
        self.seq18_Conv = Conv(64, 64, 3, 2)
        self.seq20_C3 = C3(128, 128, 1, False)
        self.seq21_Conv = Conv(128, 128, 3, 2)
        self.seq23_C3 = C3(256, 256, 1, False)

    def forward(self, x):
        x = self.seq0_Focus(x)
        x = self.seq1_Conv(x)
        x = self.seq2_C3(x)
        x = self.seq3_Conv(x)
        xRt0 = self.seq4_C3(x)
        x = self.seq5_Conv(xRt0)
        xRt1 = self.seq6_C3(x)
        x = self.seq7_Conv(xRt1)
        x = self.seq8_SPP(x)
        x = self.seq9_C3(x)
        xRt2 = self.seq10_Conv(x)
        route = F.interpolate(xRt2, size=(int(xRt2.shape[2] * 2), int(xRt2.shape[3] * 2)), mode='nearest')
        x = torch.cat([route, xRt1], dim=1)
        x = self.seq13_C3(x)
        xRt3 = self.seq14_Conv(x)
        route = F.interpolate(xRt3, size=(int(xRt3.shape[2] * 2), int(xRt3.shape[3] * 2)), mode='nearest')
        x = torch.cat([route, xRt0], dim=1)
        out0 = self.seq17_C3(x)
        x = self.seq18_Conv(out0)
        x = torch.cat([x, xRt3], dim=1)
        out1 = self.seq20_C3(x)
        x = self.seq21_Conv(out1)
        x = torch.cat([x, xRt2], dim=1)
        out2 = self.seq23_C3(x)
        return out0, out1, out2


def make_model():
    return My_YOLO_backbone_head().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 320),)


def other_inputs():
    return [(torch.randn(2, 3, 256, 416),), (torch.randn(1, 3, 448, 192),)]


def probe_inputs():
    return other_inputs()
