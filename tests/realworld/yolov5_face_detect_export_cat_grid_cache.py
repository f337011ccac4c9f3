"""YOLOv5-Face detector exported with export.py (`export_cat = True`, dry run at 640x640 first) and
`dynamic_axes` on the input height/width: the Detect head caches its decode grids on the module
(`if self.grid[i].shape[2:4] != x[i].shape[2:4]: self.grid[i], self.anchor_grid[i] = self._make_grid_new(...)`),
so the exported model only works at the export size; inference at 1280x1280 fails.

Source: https://github.com/deepcam-cn/yolov5-face/issues/256
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"img": {2: "height", 3: "width"}}
BLIND = "domains-11"


class Detect(nn.Module):
    stride = None  # strides computed during build
    export_cat = False  # onnx export cat output

    def __init__(self, nc=80, anchors=(), ch=()):  # detection layer
        super(Detect, self).__init__()
        self.nc = nc  # number of classes
        self.no = nc + 5 + 10  # number of outputs per anchor
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer('anchors', a)  # shape(nl,na,2)
        self.register_buffer('anchor_grid', a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv

    def forward(self, x):
        z = []  # inference output
        if self.export_cat:
            for i in range(self.nl):
                x[i] = self.m[i](x[i])  # conv
                bs, _, ny, nx = x[i].shape  # x(bs,255,20,20) to x(bs,3,20,20,85)
                x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i], self.anchor_grid[i] = self._make_grid_new(nx, ny, i)

                y = torch.full_like(x[i], 0)
                y = y + torch.cat((x[i][:, :, :, :, 0:5].sigmoid(),
                                   torch.cat((x[i][:, :, :, :, 5:15], x[i][:, :, :, :, 15:15 + self.nc].sigmoid()), 4)),
                                  4)

                box_xy = (y[:, :, :, :, 0:2] * 2. - 0.5 + self.grid[i].to(x[i].device)) * self.stride[i]  # xy
                box_wh = (y[:, :, :, :, 2:4] * 2) ** 2 * self.anchor_grid[i]  # wh
                landm1 = y[:, :, :, :, 5:7] * self.anchor_grid[i] + self.grid[i].to(x[i].device) * self.stride[i]
                landm2 = y[:, :, :, :, 7:9] * self.anchor_grid[i] + self.grid[i].to(x[i].device) * self.stride[i]
                landm3 = y[:, :, :, :, 9:11] * self.anchor_grid[i] + self.grid[i].to(x[i].device) * self.stride[i]
                landm4 = y[:, :, :, :, 11:13] * self.anchor_grid[i] + self.grid[i].to(x[i].device) * self.stride[i]
                landm5 = y[:, :, :, :, 13:15] * self.anchor_grid[i] + self.grid[i].to(x[i].device) * self.stride[i]
                y = torch.cat([box_xy, box_wh, y[:, :, :, :, 4:5], landm1, landm2, landm3, landm4, landm5,
                               y[:, :, :, :, 15:15 + self.nc]], -1)
                z.append(y.view(bs, -1, self.no))
            return torch.cat(z, 1)
        raise NotImplementedError  # training / non-export branch trimmed

    def _make_grid_new(self, nx=20, ny=20, i=0):
        d = self.anchors[i].device
        yv, xv = torch.meshgrid([torch.arange(ny).to(d), torch.arange(nx).to(d)], indexing='ij')
        grid = torch.stack((xv, yv), 2).expand((1, self.na, ny, nx, 2)).float()
        anchor_grid = (self.anchors[i].clone() * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(
            (1, self.na, ny, nx, 2)).float()
        return grid, anchor_grid


class YoloFace(nn.Module):
    def __init__(self):
        super().__init__()
        self.p3 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.SiLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU(),
                                nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        self.p4 = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.SiLU())
        self.p5 = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.SiLU())
        anchors = [[4, 5, 8, 10, 13, 16], [23, 29, 43, 55, 73, 105], [146, 217, 231, 300, 335, 433]]
        self.detect = Detect(nc=1, anchors=anchors, ch=(32, 32, 32))
        self.detect.stride = torch.tensor([8., 16., 32.])
        self.detect.anchors /= self.detect.stride.view(-1, 1, 1)

    def forward(self, img):
        a = self.p3(img)
        b = self.p4(a)
        return self.detect([a, b, self.p5(b)])


def make_model():
    model = YoloFace()
    # export.py
    delattr(model.detect, 'anchor_grid')
    model.detect.anchor_grid = [torch.zeros(1)] * 3  # nl=3 number of detection layers
    model.detect.export_cat = True
    model.eval()
    model(torch.zeros(1, 3, 640, 640))  # dry run
    return model


def example_inputs():
    return (torch.randn(1, 3, 640, 640),)


def other_inputs():
    return [(torch.randn(1, 3, 1280, 1280),), (torch.randn(1, 3, 320, 480),)]


def probe_inputs():
    return other_inputs()
