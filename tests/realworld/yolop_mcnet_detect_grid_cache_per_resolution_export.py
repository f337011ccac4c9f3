"""YOLOP (panoptic driving perception: traffic-object detection + drivable-area and lane-line segmentation, deployed
on Jetson/TensorRT): `export_onnx.py` exports one fixed-size ONNX per resolution (`--height/--width`, "yolop-640-640",
"yolop-320-320", ...) because the `Detect` head caches its decode grid on the module
(`if self.grid[i].shape[2:4] != x[i].shape[2:4]: self.grid[i] = self._make_grid(nx, ny)`) and writes the decoded
xy/wh back in place, so a graph traced at one size does not serve other sizes.

Source: https://github.com/hustvl/YOLOP/blob/a30c32c3ea17970e8daa94ee99e5803acdcf1a48/export_onnx.py
"""
import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-48"


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super(Conv, self).__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.Hardswish()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Focus(nn.Module):
    # Focus wh information into c-space
    def __init__(self, c1, c2, k=1):
        super(Focus, self).__init__()
        self.conv = Conv(c1 * 4, c2, k, 1)

    def forward(self, x):  # x(b,c,w,h) -> y(b,4c,w/2,h/2)
        return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))


class Detect(nn.Module):
    stride = None  # strides computed during build

    def __init__(self, nc=13, anchors=(), ch=()):  # detection layer
        super(Detect, self).__init__()
        self.nc = nc  # number of classes
        self.no = nc + 5  # number of outputs per anchor 85
        self.nl = len(anchors)  # number of detection layers 3
        self.na = len(anchors[0]) // 2  # number of anchors 3
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer('anchors', a)  # shape(nl,na,2)
        self.register_buffer('anchor_grid', a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)  # output conv

    def forward(self, x):
        z = []  # inference output
        for i in range(self.nl):
            x[i] = self.m[i](x[i])  # conv
            bs, _, ny, nx = x[i].shape  # x(bs,255,w,w) to x(bs,3,w,w,85)
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

            if not self.training:  # inference
                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i] = self._make_grid(nx, ny).to(x[i].device)
                y = x[i].sigmoid()
                y[..., 0:2] = (y[..., 0:2] * 2. - 0.5 + self.grid[i].to(x[i].device)) * self.stride[i]  # xy
                y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]  # wh
                z.append(y.view(bs, -1, self.no))
        return x if self.training else (torch.cat(z, 1), x)

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


class MCnet(nn.Module):
    # trimmed: encoder -> 2 detection levels + drivable-area / lane-line segmentation heads
    def __init__(self):
        super(MCnet, self).__init__()
        self.focus = Focus(3, 16, 3)
        self.down1 = Conv(16, 32, 3, 2)    # /4
        self.down2 = Conv(32, 64, 3, 2)    # /8
        self.down3 = Conv(64, 64, 3, 2)    # /16
        self.detect = Detect(1, [[3, 9, 5, 11, 4, 20], [7, 18, 6, 39, 12, 31]], [64, 64])
        self.da_head = nn.Sequential(Conv(64, 16, 3), nn.Upsample(None, 8, 'nearest'), nn.Conv2d(16, 2, 3, 1, 1))
        self.ll_head = nn.Sequential(Conv(64, 16, 3), nn.Upsample(None, 8, 'nearest'), nn.Conv2d(16, 2, 3, 1, 1))

        # set stride, anchor for detector
        s = 128  # 2x min stride
        with torch.no_grad():
            detects, _, _ = self.forward(torch.zeros(1, 3, s, s))
            self.detect.stride = torch.tensor([s / x.shape[-2] for x in detects])  # forward
        self.detect.anchors /= self.detect.stride.view(-1, 1, 1)
        self.stride = self.detect.stride

    def forward(self, x):
        p8 = self.down2(self.down1(self.focus(x)))
        p16 = self.down3(p8)
        det = self.detect([p8, p16])
        det_out = det if self.training else det[0]  # (torch.cat(z, 1), input_feat) if test
        da = torch.sigmoid(self.da_head(p8))
        ll = torch.sigmoid(self.ll_head(p8))
        return det_out, da, ll  # det, da, ll


def make_model():
    return MCnet().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(1, 3, 320, 192),), (torch.randn(1, 3, 128, 448),)]


def probe_inputs():
    return other_inputs()
