"""SPP-Net (spatial pyramid pooling) head: each pyramid level computes its max-pool kernel, stride and
padding with math.ceil on the feature map's h, w so any image size gives a fixed-length vector; the user
could not export it to ONNX with a dynamic image size.

Source: https://github.com/pytorch/pytorch/issues/60253
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-27"


class Spp(nn.Module):

    def __init__(self, level, pooling_type="max_pool"):
        super().__init__()
        self.num = level
        self.pooling_type = pooling_type

    def forward(self, x):
        h, w = x.shape[2:]
        kernel_size = (math.ceil(h / self.num), math.ceil(w / self.num))
        stride = kernel_size
        pooling = (math.ceil((kernel_size[0] * self.num - h) / 2), math.ceil((kernel_size[1] * self.num - w) / 2))
        if self.pooling_type == 'max_pool' or self.pooling_type == "max":
            tensor = F.max_pool2d(x, kernel_size=kernel_size, stride=stride, padding=pooling)
        else:
            tensor = F.avg_pool2d(x, kernel_size=kernel_size, stride=stride, padding=pooling)
        return tensor


class SppNet(nn.Module):

    def __init__(self, pooling_type="max_pool", level=1):
        super(SppNet, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.spps = []
        for i in range(level):
            self.spps.append(Spp(pooling_type=pooling_type, level=i + 1))
        self.fc = nn.Linear(16 * (1 + 4 + 9), 10)

    def forward(self, x):
        x = self.features(x)
        n, c = x.shape[0:2]
        out = []
        for spp in self.spps:
            out.append(spp(x).view(n, -1))
        out = torch.cat(out, dim=1)
        return self.fc(out)


def make_model():
    return SppNet(pooling_type="max_pool", level=3)


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 48, 80),), (torch.randn(1, 3, 100, 70),)]


def probe_inputs():
    return other_inputs()
