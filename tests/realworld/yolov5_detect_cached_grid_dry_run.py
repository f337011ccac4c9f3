"""YOLOv5 (v5.0) `Detect` head exported with `--grid --dynamic`: the grid of each level is cached in
`self.grid[i]` and only rebuilt `if self.grid[i].shape[2:4] != x[i].shape[2:4]`; export.py's dry run
`y = model(img)` fills the cache at the export size, so the traced graph adds a constant grid and the PR
reports that `self.grid[i]` mismatches the dynamic `y[..., 0:2]` (onnxruntime: "Attempting to broadcast
an axis by a dimension other than 1" at another image size).

Source: https://github.com/ultralytics/yolov5/pull/2982
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-21"


class Detect(nn.Module):
    stride = None  # strides computed during build
    export = False  # onnx export

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
        # x = x.copy()  # for profiling
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
                y[..., 0:2] = (y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]  # xy
                y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]  # wh
                z.append(y.view(bs, -1, self.no))

        return x if self.training else (torch.cat(z, 1), x)

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)])
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


class TinyYolo(nn.Module):
    """Stand-in backbone with P3/P4/P5 outputs (strides 8, 16, 32) feeding the YOLOv5 Detect head."""

    def __init__(self, nc=2):
        super().__init__()
        self.p3 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.SiLU(), nn.Conv2d(8, 8, 3, 2, 1), nn.SiLU(),
                                nn.Conv2d(8, 8, 3, 2, 1), nn.SiLU())
        self.p4 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.SiLU())
        self.p5 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        anchors = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]
        self.detect = Detect(nc, anchors, ch=(8, 16, 32))
        self.detect.stride = torch.tensor([8., 16., 32.])
        self.detect.export = False  # export.py: model.model[-1].export = not opt.grid  (--grid given)

    def forward(self, img):
        p3 = self.p3(img)
        p4 = self.p4(p3)
        p5 = self.p5(p4)
        return self.detect([p3, p4, p5])[0]


def make_model():
    model = TinyYolo().eval()
    img = torch.zeros(1, 3, 256, 320)  # export image size
    y = model(img)  # dry run (export.py)
    return model


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(2, 3, 320, 192),), (torch.randn(1, 3, 160, 416),)]


def probe_inputs():
    return other_inputs()
