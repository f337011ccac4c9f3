"""YOLOv7-pose (yolov7-pose-e2e-trt fork) exported with dynamic_axes on the batch: the IKeypoint head reshapes
each level with `x[i].view(int(bs), int(self.na), int(self.no), int(ny), int(nx))` (and, under ONNX export,
rebuilds its grid through NumPy and `self.stride[i].item()`); the ONNX model shows a dynamic batch on its input
and output but batch-1 constants inside, and fails for any other batch.

Source: https://github.com/BaofengZan/yolov7-pose-e2e-trt/issues/12
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-12"


class ImplicitA(nn.Module):
    def __init__(self, channel):
        super(ImplicitA, self).__init__()
        self.channel = channel
        self.implicit = nn.Parameter(torch.zeros(1, channel, 1, 1))
        nn.init.normal_(self.implicit, std=.02)

    def forward(self, x):
        return self.implicit.expand_as(x) + x


class ImplicitM(nn.Module):
    def __init__(self, channel):
        super(ImplicitM, self).__init__()
        self.channel = channel
        self.implicit = nn.Parameter(torch.ones(1, channel, 1, 1))
        nn.init.normal_(self.implicit, mean=1., std=.02)

    def forward(self, x):
        return self.implicit.expand_as(x) * x


class IKeypoint(nn.Module):
    stride = None  # strides computed during build
    export = False  # onnx export

    def __init__(self, nc=80, anchors=(), nkpt=17, ch=(), inplace=True, dw_conv_kpt=False):  # detection layer
        super(IKeypoint, self).__init__()
        self.nc = nc  # number of classes
        self.nkpt = nkpt
        self.dw_conv_kpt = dw_conv_kpt
        self.no_det=(nc + 5)  # number of outputs per anchor for box and class
        self.no_kpt = 3*self.nkpt ## number of outputs per anchor for keypoints
        self.no = self.no_det+self.no_kpt
        self.nl = len(anchors)  # number of detection layers
        self.na = len(anchors[0]) // 2  # number of anchors
        self.grid = [torch.zeros(1)] * self.nl  # init grid
        self.flip_test = False
        a = torch.tensor(anchors).float().view(self.nl, -1, 2)
        self.register_buffer('anchors', a)  # shape(nl,na,2)
        self.register_buffer('anchor_grid', a.clone().view(self.nl, 1, -1, 1, 1, 2))  # shape(nl,1,na,1,1,2)
        self.m = nn.ModuleList(nn.Conv2d(x, self.no_det * self.na, 1) for x in ch)  # output conv

        self.ia = nn.ModuleList(ImplicitA(x) for x in ch)
        self.im = nn.ModuleList(ImplicitM(self.no_det * self.na) for _ in ch)

        if self.nkpt is not None:
            self.m_kpt = nn.ModuleList(nn.Conv2d(x, self.no_kpt * self.na, 1) for x in ch)

        self.inplace = inplace  # use in-place ops (e.g. slice assignment)

    def forward(self, x):
        # the branch the fork takes under torch.onnx.export (is_in_onnx_export() True, inplace False);
        # its eager branch writes the keypoints in another layout, so only the exported one is kept here
        z = []  # inference output
        self.training |= self.export
        self.inplace = False
        for i in range(self.nl):
            if self.nkpt is None or self.nkpt==0:
                x[i] = self.im[i](self.m[i](self.ia[i](x[i])))  # conv
            else :
                x[i] = torch.cat((self.im[i](self.m[i](self.ia[i](x[i]))), self.m_kpt[i](x[i])), axis=1)

            bs, _, ny, nx = x[i].shape  # x(bs,255,20,20) to x(bs,3,20,20,85)
            x[i] = x[i].view(int(bs), int(self.na), int(self.no), int(ny), int(nx)).permute(0, 1, 3, 4, 2).contiguous()
            x_det, x_kpt = x[i].split((6, int(self.no)-6), -1)

            if not self.training:  # inference
                if self.grid[i].shape[2:4] != x[i].shape[2:4]:
                    self.grid[i] = self._make_grid(nx, ny).to(x[i].device)
                grid = self.grid[i].cpu().detach().numpy()
                grid = torch.tensor(grid)
                kpt_grid_x, kpt_grid_y = grid.split((1,1), -1)
                if self.nkpt == 0:
                    y = x[i].sigmoid()
                else:
                    y = x_det.sigmoid()

                anchor_grid = self.anchor_grid[i].clone().view(1, -1, 1, 1, 2)
                xy, wh, conf = y.split((2, 2, self.nc+1), 4)
                xy = (xy * 2. - 0.5 + grid) * self.stride[i].item()  # xy
                wh = (wh * 2) ** 2 * anchor_grid  # wh
                if self.nkpt != 0:
                    kpt_split = x_kpt.split(tuple([1 for _ in range(self.nkpt*3)]), 4)
                    x_kpt_split=[]
                    y_kpt_split=[]
                    conf_kpt_split = []
                    for j in range(self.nkpt*3):
                        if (j%3==0):
                            x_kpt_split.append(kpt_split[j])
                        if (j%3==1):
                            y_kpt_split.append(kpt_split[j])
                        if (j%3==2):
                            conf_kpt_split.append(kpt_split[j])
                    x_kpt_split = torch.cat(x_kpt_split, -1)
                    y_kpt_split = torch.cat(y_kpt_split, -1)
                    conf_kpt_split = torch.cat(conf_kpt_split, -1)
                    x_kpt_x = (x_kpt_split * 2. - 0.5 + kpt_grid_x.repeat(1,1,1,1,17)) * self.stride[i].item()  # xy
                    x_kpt_y = (y_kpt_split * 2. - 0.5 + kpt_grid_y.repeat(1,1,1,1,17)) * self.stride[i].item()  # xy
                    x_kpt_c = conf_kpt_split.sigmoid()
                y = torch.cat((xy, wh, conf, x_kpt_x, x_kpt_y, x_kpt_c), -1)
                _,c,h,w,_ = y.size()
                z.append(y.view(-1, int(c)*int(h)*int(w), self.no))
        if self.training:
            return x
        return (torch.cat(z, 1), )

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()


class Model(nn.Module):
    # stand-in for the yolov7-w6-pose backbone/neck: P3/P4/P5 maps into the IKeypoint head
    def __init__(self):
        super(Model, self).__init__()
        self.p3 = nn.Sequential(nn.Conv2d(3, 16, 3, 4, 1), nn.SiLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.SiLU())
        self.p4 = nn.Sequential(nn.Conv2d(16, 24, 3, 2, 1), nn.SiLU())
        self.p5 = nn.Sequential(nn.Conv2d(24, 32, 3, 2, 1), nn.SiLU())
        anchors = [[19, 27, 44, 40, 38, 94], [96, 68, 86, 152, 180, 137], [140, 301, 303, 264, 238, 542]]
        self.detect = IKeypoint(nc=1, anchors=anchors, nkpt=17, ch=(16, 24, 32))
        self.detect.stride = torch.tensor([8., 16., 32.])

    def forward(self, images):
        p3 = self.p3(images)
        p4 = self.p4(p3)
        p5 = self.p5(p4)
        return self.detect([p3, p4, p5])[0]


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(2, 3, 128, 128),), (torch.randn(4, 3, 128, 128),)]


def probe_inputs():
    return other_inputs()
