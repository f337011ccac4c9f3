"""ultralytics-style YOLOv3-SPP YOLOLayer (convert_yolo_weights): the grid is cached on the module and
rebuilt only when `if (self.nx, self.ny) != (nx, ny):` (a size comparison), then written into the
output with `io[..., :2] = torch.sigmoid(io[..., :2]) + self.grid`; export warns on that branch and
the grid does not follow a new input size.

Source: https://github.com/phanxuanduc1996/convert_yolo_weights/issues/4
"""
import torch
from torch import nn

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-10"

ONNX_EXPORT = False


class YOLOLayer(nn.Module):
    def __init__(self, anchors, nc, img_size, yolo_index, layers, stride):
        super(YOLOLayer, self).__init__()
        self.anchors = torch.Tensor(anchors)
        self.index = yolo_index  # index of this layer in layers
        self.layers = layers  # model output layer indices
        self.stride = stride  # layer stride
        self.nl = len(layers)  # number of output layers (3)
        self.na = len(anchors)  # number of anchors (3)
        self.nc = nc  # number of classes (80)
        self.no = nc + 5  # number of outputs (85)
        self.nx, self.ny, self.ng = 0, 0, 0  # initialize number of x, y gridpoints
        self.anchor_vec = self.anchors / self.stride
        self.anchor_wh = self.anchor_vec.view(1, self.na, 1, 1, 2)

    def create_grids(self, ng=(13, 13), device='cpu'):
        self.nx, self.ny = ng  # x and y grid size
        self.ng = torch.tensor(ng, dtype=torch.float)

        # build xy offsets
        if not self.training:
            yv, xv = torch.meshgrid([torch.arange(self.ny, device=device), torch.arange(self.nx, device=device)])
            self.grid = torch.stack((xv, yv), 2).view((1, 1, self.ny, self.nx, 2)).float()

        if self.anchor_vec.device != device:
            self.anchor_vec = self.anchor_vec.to(device)
            self.anchor_wh = self.anchor_wh.to(device)

    def forward(self, p, out):
        if ONNX_EXPORT:
            bs = 1  # batch size
        else:
            bs, _, ny, nx = p.shape  # bs, 255, 13, 13
            if (self.nx, self.ny) != (nx, ny):
                self.create_grids((nx, ny), p.device)

        # p.view(bs, 255, 13, 13) -- > (bs, 3, 13, 13, 85)  # (bs, anchors, grid, grid, classes + xywh)
        p = p.view(bs, self.na, self.no, self.ny, self.nx).permute(0, 1, 3, 4, 2).contiguous()  # prediction

        if self.training:
            return p
        else:  # inference
            io = p.clone()  # inference output
            io[..., :2] = torch.sigmoid(io[..., :2]) + self.grid  # xy
            io[..., 2:4] = torch.exp(io[..., 2:4]) * self.anchor_wh  # wh yolo method
            io[..., :4] *= self.stride
            torch.sigmoid_(io[..., 4:])
            return io.view(bs, -1, self.no), p  # view [1, 3, 13, 13, 85] as [1, 507, 85]


class Darknet(nn.Module):
    # YOLOv3 object detection model (backbone trimmed to a few stride-2 convs)
    def __init__(self, nc=4, img_size=(64, 64)):
        super(Darknet, self).__init__()
        anchors = [[10, 13], [16, 30], [33, 23]]
        self.module_list = nn.ModuleList([
            nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.LeakyReLU(0.1)),
            nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.1)),
            nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.LeakyReLU(0.1)),
            nn.Conv2d(32, len(anchors) * (nc + 5), 1),
            YOLOLayer(anchors, nc, img_size, 0, [4], 8),
        ])

    def forward(self, x):
        yolo_out, out = [], []
        for i, module in enumerate(self.module_list):
            name = module.__class__.__name__
            if name == 'YOLOLayer':
                yolo_out.append(module(x, out))
            else:
                x = module(x)
            out.append(x)
        x, p = zip(*yolo_out)  # inference output, training output
        x = torch.cat(x, 1)  # cat yolo outputs
        return x, p[0]


def make_model():
    return Darknet().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
