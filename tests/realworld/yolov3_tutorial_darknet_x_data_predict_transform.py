"""Hand-written YOLOv3 (the "YOLO v3 from scratch" tutorial Darknet): the yolo layer does `x = x.data`
before `predict_transform(...)`, which builds the grid with `torch.arange(grid_size)` / `torch.meshgrid`
and writes offsets and anchors into `prediction` in place; the exported ONNX model has no input
("only one variable after exporting it") and always returns the detections of the export input.

Source: https://github.com/pytorch/pytorch/issues/31705
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-29"


def predict_transform(prediction, inp_dim, anchors, num_classes, CUDA=True):
    batch_size = prediction.size(0)
    stride = inp_dim // prediction.size(2)
    grid_size = inp_dim // stride
    bbox_attrs = 5 + num_classes
    num_anchors = len(anchors)

    prediction = prediction.view(batch_size, bbox_attrs * num_anchors, grid_size * grid_size)
    prediction = prediction.transpose(1, 2).contiguous()
    prediction = prediction.view(batch_size, grid_size * grid_size * num_anchors, bbox_attrs)
    # anchors = [(a[0]/stride, a[1]/stride) for a in anchors]

    # Sigmoid the  centre_X, centre_Y. and object confidencce
    prediction = torch.cat((torch.sigmoid(prediction[:, :, 0:1]), prediction[:, :, 1:]), dim=2)
    prediction = torch.cat((torch.sigmoid(prediction[:, :, 1:2]), prediction[:, :, 2:]), dim=2)
    prediction = torch.cat((torch.sigmoid(prediction[:, :, 3:4]), prediction[:, :, 4:]), dim=2)

    # Add the center offsets
    grid = torch.arange(grid_size)
    a, b = torch.meshgrid(grid, grid)
    x_offset = a.type(torch.FloatTensor).view(-1, 1)
    y_offset = b.type(torch.FloatTensor).view(-1, 1)
    x_y_offset = torch.cat((x_offset, y_offset), 1).repeat(1, num_anchors).view(-1, 2).unsqueeze(0)
    prediction[:, :, :2] += x_y_offset

    anchors = torch.FloatTensor(anchors)
    anchors = anchors.repeat(grid_size * grid_size, 1).unsqueeze(0)
    prediction[:, :, 2:4] = torch.exp(prediction[:, :, 2:4]) * anchors
    prediction[:, :, 5: 5 + num_classes] = torch.sigmoid((prediction[:, :, 5: 5 + num_classes]))
    prediction[:, :, :4] *= stride
    return prediction


class Darknet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.net_info = {"height": "64"}
        self.num_classes = num_classes
        self.anchors = [(10, 13), (16, 30), (33, 23)]
        self.module_list = nn.ModuleList([
            nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.LeakyReLU(0.1)),
            nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.1)),
            nn.Sequential(nn.Conv2d(32, 3 * (5 + num_classes), 1)),
        ])

    def forward(self, x, CUDA=False):
        write = 0
        for module in self.module_list:
            x = module(x)
        # yolo layer
        inp_dim = int(self.net_info["height"])
        x = x.data
        x = predict_transform(x, inp_dim, self.anchors, self.num_classes, CUDA)
        if not write:
            detections = x
            write = 1
        else:
            detections = torch.cat((detections, x), 1)
        return detections


def make_model():
    return Darknet()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
