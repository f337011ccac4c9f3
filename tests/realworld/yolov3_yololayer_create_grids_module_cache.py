"""YOLOv3 (ultralytics, torchbench `yolov3`): each `YOLOLayer` caches its grid on the module, re-running
`create_grids` (which sets `self.nx, self.ny`, `self.grid`, ...) only when `(self.nx, self.ny) != (nx, ny)`;
export fails with "Mutating module attribute nx during export", and a traced graph keeps the grid of the export
size. (Darknet backbone reduced to two strided convs; one YOLO head.)

Source: https://github.com/pytorch/pytorch/issues/105531
"""
import torch
import torch.nn as nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-27"


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
            yv, xv = torch.meshgrid([torch.arange(self.ny, device=device), torch.arange(self.nx, device=device)], indexing='ij')
            self.grid = torch.stack((xv, yv), 2).view((1, 1, self.ny, self.nx, 2)).float()

        if self.anchor_vec.device != device:
            self.anchor_vec = self.anchor_vec.to(device)
            self.anchor_wh = self.anchor_wh.to(device)

    def forward(self, p, out):
        bs, _, ny, nx = p.shape  # bs, 255, 13, 13
        if (self.nx, self.ny) != (nx, ny):
            self.create_grids((nx, ny), p.device)

        # p.view(bs, 255, 13, 13) -- > (bs, 3, 13, 13, 85)  # (bs, anchors, grid, grid, classxywh)
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
    def __init__(self, nc=80):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.1),
        )
        self.head = nn.Conv2d(32, 3 * (nc + 5), 1)
        self.yolo = YOLOLayer(anchors=[[10, 13], [16, 30], [33, 23]], nc=nc, img_size=(416, 416),
                              yolo_index=0, layers=[], stride=4)

    def forward(self, x):
        out = []
        p = self.head(self.backbone(x))
        io, p = self.yolo(p, out)
        return io


def make_model():
    return Darknet().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 64),), (torch.randn(1, 3, 128, 128),)]


def probe_inputs():
    return other_inputs()
