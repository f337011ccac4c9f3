"""KAPAO (YOLOv5-based keypoint/pose detector) Detect head: the grid is cached on the module
(`if self.grid[i].shape[2:4] != x[i].shape[2:4] ...: self.grid[i] = self._make_grid(nx, ny)`) and the keypoint
coordinates are decoded in place on slices of `y` (`y[..., -self.num_coords:] *= self.anchor_grid[i].repeat(...)`,
`+= (self.grid[i] * self.stride[i]).repeat(...)`); the exported ONNX model is rejected by onnxsim and onnxruntime
with "incompatible dimensions" on a Mul node, and the reporter points at these keypoint lines.

Source: https://github.com/wmcnally/kapao/issues/44
"""
import torch
from torch import nn

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"p3": {0: "batch", 2: "h3", 3: "w3"}, "p4": {0: "batch", 2: "h4", 3: "w4"},
           "p5": {0: "batch", 2: "h5", 3: "w5"}}
BLIND = "domains-8"

ANCHORS = [[19, 27, 44, 40, 38, 94], [96, 68, 86, 152, 180, 137], [140, 301, 303, 264, 238, 542]]


class Detect(nn.Module):
    stride = None  # strides computed during build
    onnx_dynamic = False  # ONNX export parameter

    def __init__(self, nc=80, anchors=(), ch=(), inplace=True, num_coords=0):  # detection layer
        super().__init__()
        self.nc = nc  # number of classes
        self.no = nc + 5  # number of outputs per anchor
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer('anchors', a)  # shape(nl,na,2)
        self.register_buffer('anchor_grid', a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv
        self.inplace = inplace  # use in-place ops (e.g. slice assignment)
        self.num_coords = num_coords

    def forward(self, x):
        z = []  # inference output
        for i in range(self.nl):
            x[i] = self.m[i](x[i])  # conv
            bs, _, ny, nx = x[i].shape  # x(bs,255,20,20) to x(bs,3,20,20,85)
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

            if not self.training:  # inference
                if self.grid[i].shape[2:4] != x[i].shape[2:4] or self.onnx_dynamic:
                    self.grid[i] = self._make_grid(nx, ny).to(x[i].device)

                y = x[i].sigmoid()
                if self.inplace:
                    y[..., 0:2] = (y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]  # xy
                    y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]  # wh

                    if hasattr(self, 'num_coords') and self.num_coords:
                        y[..., -self.num_coords:] = y[..., -self.num_coords:] * 4. - 2.
                        y[..., -self.num_coords:] *= self.anchor_grid[i].repeat((1, 1, 1, 1, self.num_coords // 2))
                        y[..., -self.num_coords:] += (self.grid[i] * self.stride[i]).repeat((1, 1, 1, 1, self.num_coords // 2))
                z.append(y.view(bs, -1, self.no))

        return x if self.training else (torch.cat(z, 1), x)

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)])
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


class KapaoHead(nn.Module):
    def __init__(self):
        super().__init__()
        num_coords = 34  # 17 keypoints (x, y)
        self.detect = Detect(nc=18 + num_coords, anchors=ANCHORS, ch=(32, 64, 128), num_coords=num_coords)
        self.detect.stride = torch.tensor([8., 16., 32.])

    def forward(self, p3, p4, p5):
        out, feats = self.detect([p3, p4, p5])
        return (out, *feats)


def make_model():
    return KapaoHead().eval()


def _feats(b, h, w):
    return (torch.randn(b, 32, h // 8, w // 8), torch.randn(b, 64, h // 16, w // 16),
            torch.randn(b, 128, h // 32, w // 32))


def example_inputs():
    return _feats(1, 256, 320)


def other_inputs():
    return [_feats(2, 384, 256), _feats(1, 192, 448)]


def probe_inputs():
    return other_inputs()
