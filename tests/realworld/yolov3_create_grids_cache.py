"""ultralytics/yolov3 YOLOLayer: the grid is cached on the module and rebuilt by create_grids() only
`if (self.nx, self.ny) != (nx, ny)`; exporting Darknet gives TracerWarnings on that line and on
`self.ng = torch.Tensor(ng)`, so the grid/stride of the export size end up baked into the graph.

Source: https://github.com/ultralytics/yolov3/issues/766
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-3"


def create_grids(self, img_size=416, ng=(13, 13), device='cpu', type=torch.float32):
    nx, ny = ng  # x and y grid size
    self.img_size = max(img_size)
    self.stride = self.img_size / max(ng)

    # build xy offsets
    yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)])
    self.grid_xy = torch.stack((xv, yv), 2).to(device).type(type).view((1, 1, ny, nx, 2))

    # build wh gains
    self.anchor_vec = self.anchors.to(device) / self.stride
    self.anchor_wh = self.anchor_vec.view(1, self.na, 1, 1, 2).to(device).type(type)
    self.ng = torch.Tensor(ng).to(device)
    self.nx = nx
    self.ny = ny


class YOLOLayer(nn.Module):
    def __init__(self, anchors, nc):
        super(YOLOLayer, self).__init__()
        self.anchors = torch.Tensor(anchors)
        self.na = len(anchors)  # number of anchors (3)
        self.nc = nc  # number of classes (80)
        self.no = nc + 5  # number of outputs
        self.nx = 0  # initialize number of x gridpoints
        self.ny = 0  # initialize number of y gridpoints

    def forward(self, p, img_size):
        bs, _, ny, nx = p.shape  # bs, 255, 13, 13
        if (self.nx, self.ny) != (nx, ny):
            create_grids(self, img_size, (nx, ny), p.device, p.dtype)

        # p.view(bs, 255, 13, 13) -- > (bs, 3, 13, 13, 85)  # (bs, anchors, grid, grid, classes + xywh)
        p = p.view(bs, self.na, self.no, self.ny, self.nx).permute(0, 1, 3, 4, 2).contiguous()  # prediction

        io = p.clone()  # inference output
        io[..., :2] = torch.sigmoid(io[..., :2]) + self.grid_xy  # xy
        io[..., 2:4] = torch.exp(io[..., 2:4]) * self.anchor_wh  # wh yolo method
        io[..., :4] *= self.stride
        torch.sigmoid_(io[..., 4:])
        # reshape from [1, 3, 13, 13, 85] to [1, 507, 85]
        return io.view(bs, -1, self.no), p


class TinyDarknet(nn.Module):
    def __init__(self, nc=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.LeakyReLU(0.1), nn.Conv2d(8, 16, 3, 2, 1),
                                      nn.LeakyReLU(0.1), nn.Conv2d(16, 3 * (nc + 5), 1))
        self.yolo = YOLOLayer([(10., 13.), (16., 30.), (33., 23.)], nc)

    def forward(self, x):
        img_size = x.shape[-2:]
        io, p = self.yolo(self.backbone(x), img_size)
        return io


def make_model():
    return TinyDarknet().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(1, 3, 32, 128),)]


def probe_inputs():
    return other_inputs()
