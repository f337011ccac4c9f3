"""SCNN lane detection head (pytorch-auto-drive SpatialConv): message passing row by row and column by column,
`for i in range(1, output.shape[2]): output[:, :, i:i + 1, :].add_(F.relu(self.conv_d(output[:, :, i - 1:i, :])))`;
the ONNX-conversion PR notes "PyTorch index+add_ will be ignored in traced graph" and, when tracing, rewrites each
step as an out-of-place slice assignment (the loops still run over the feature map's height and width).

Source: https://github.com/voldemortX/pytorch-auto-drive/pull/43
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-47"


# SCNN head
class SpatialConv(nn.Module):
    def __init__(self, num_channels=128):
        super().__init__()
        self.conv_d = nn.Conv2d(num_channels, num_channels, (1, 9), padding=(0, 4))
        self.conv_u = nn.Conv2d(num_channels, num_channels, (1, 9), padding=(0, 4))
        self.conv_r = nn.Conv2d(num_channels, num_channels, (9, 1), padding=(4, 0))
        self.conv_l = nn.Conv2d(num_channels, num_channels, (9, 1), padding=(4, 0))
        self._adjust_initializations(num_channels=num_channels)

    def _adjust_initializations(self, num_channels=128):
        # https://github.com/XingangPan/SCNN/issues/82
        bound = math.sqrt(2.0 / (num_channels * 9 * 5))
        nn.init.uniform_(self.conv_d.weight, -bound, bound)
        nn.init.uniform_(self.conv_u.weight, -bound, bound)
        nn.init.uniform_(self.conv_r.weight, -bound, bound)
        nn.init.uniform_(self.conv_l.weight, -bound, bound)

    def forward(self, input):
        output = input

        # First one remains unchanged (according to the original paper), why not add a relu afterwards?
        # Update and send to next
        # Down
        for i in range(1, output.shape[2]):
            output[:, :, i:i + 1, :].add_(F.relu(self.conv_d(output[:, :, i - 1:i, :])))
        # Up
        for i in range(output.shape[2] - 2, 0, -1):
            output[:, :, i:i + 1, :].add_(F.relu(self.conv_u(output[:, :, i + 1:i + 2, :])))
        # Right
        for i in range(1, output.shape[3]):
            output[:, :, :, i:i + 1].add_(F.relu(self.conv_r(output[:, :, :, i - 1:i])))
        # Left
        for i in range(output.shape[3] - 2, 0, -1):
            output[:, :, :, i:i + 1].add_(F.relu(self.conv_l(output[:, :, :, i + 1:i + 2])))

        return output


class SCNNLaneNet(nn.Module):
    def __init__(self, num_classes=5, channels=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, channels, 3, stride=8, padding=1), nn.BatchNorm2d(channels), nn.ReLU())
        self.spatial_conv = SpatialConv(num_channels=channels)
        self.decoder = nn.Conv2d(channels, num_classes, 1)

    def forward(self, x):
        feats = self.encoder(x)
        feats = self.spatial_conv(feats)
        return self.decoder(feats)


def make_model():
    return SCNNLaneNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 160),), (torch.randn(1, 3, 48, 64),)]


def probe_inputs():
    return other_inputs()
