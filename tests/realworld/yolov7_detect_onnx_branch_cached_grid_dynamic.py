"""YOLOv7 `Detect` head exported with `--grid --dynamic`: the decode grid is cached in `self.grid[i]` and only
rebuilt when `self.grid[i].shape[2:4] != x[i].shape[2:4]`; in the `torch.onnx.is_in_onnx_export()` branch the
box centres are `(y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]`. The report: in the exported graph
"the "Add" layer is hard-coded to "1x1x80x80x2" instead of being relative to image input", so the dynamic
model fails on any other image size.

Source: https://github.com/WongKinYiu/yolov7/pull/1270
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "views"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-32"


class Detect(nn.Module):
    stride = None  # strides computed during build
    export = False  # onnx export
    end2end = False
    include_nms = False

    def __init__(self, nc=80, anchors=(), ch=()):  # detection layer
        super(Detect, self).__init__()
        self.nc = nc  # number of classes
        self.no = nc + 5  # number of outputs per anchor
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer('anchors', a)  # shape(nl,na,2)
        self.register_buffer('anchor_grid', a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv

    def forward(self, x):
        z = []  # inference output
        self.training |= self.export
        for i in range(self.nl):
            x[i] = self.m[i](x[i])  # conv
            bs, _, ny, nx = x[i].shape  # x(bs,255,20,20) to x(bs,3,20,20,85)
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

            if not self.training:  # inference
                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i] = self._make_grid(nx, ny).to(x[i].device)
                y = x[i].sigmoid()
                if not torch.onnx.is_in_onnx_export():
                    y[..., 0:2] = (y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]  # xy
                    y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]  # wh
                else:
                    xy = (y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]  # xy
                    wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i].data  # wh
                    y = torch.cat((xy, wh, y[..., 4:]), -1)
                z.append(y.view(bs, -1, self.no))

        if self.training:
            out = x
        else:
            out = (torch.cat(z, 1), x)
        return out

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)])
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


class TinyYOLOv7(nn.Module):
    def __init__(self, nc=4):
        super().__init__()
        self.p3 = nn.Sequential(nn.Conv2d(3, 16, 3, 8, 1), nn.SiLU())
        self.p4 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        self.detect = Detect(nc, anchors=([12, 16, 19, 36, 40, 28], [36, 75, 76, 55, 72, 146]), ch=(16, 32))
        self.detect.stride = torch.tensor([8.0, 16.0])

    def forward(self, img):
        p3 = self.p3(img)
        p4 = self.p4(p3)
        return self.detect([p3, p4])[0]


def make_model():
    return TinyYOLOv7().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 320),)


def other_inputs():
    return [(torch.randn(1, 3, 256, 384),), (torch.randn(1, 3, 448, 320),)]


def probe_inputs():
    return other_inputs()
