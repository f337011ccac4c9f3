"""RESA lane detection head (pytorch-auto-drive): the recurrent feature-shift aggregator builds its shifted row/column
indices from the feature size in forward, `idx = (torch.arange(h) + h // 2 ** (self.iteration - i)) % h`, and adds
`y[:, :, idx, :]` in place; the "To TensorRT" PR had to add a tracing branch with offsets precomputed from a fixed
export size (`trace_arg['h']`, `trace_arg['w']`) and `torch.cat` of slices instead of the index math on `h`/`w`.

Source: https://github.com/voldemortX/pytorch-auto-drive/pull/47
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-53"


# REcurrent Feature-Shift Aggregator in RESA paper
class RESA(nn.Module):
    def __init__(self, num_channels=128, iteration=5, alpha=2.0):
        super(RESA, self).__init__()
        self.iteration = iteration
        self.alpha = alpha
        self.conv_d = nn.ModuleList(nn.Conv2d(num_channels, num_channels, (1, 9), padding=(0, 4), bias=False)
                                    for _ in range(iteration))
        self.conv_u = nn.ModuleList(nn.Conv2d(num_channels, num_channels, (1, 9), padding=(0, 4), bias=False)
                                    for _ in range(iteration))
        self.conv_r = nn.ModuleList(nn.Conv2d(num_channels, num_channels, (9, 1), padding=(4, 0), bias=False)
                                    for _ in range(iteration))
        self.conv_l = nn.ModuleList(nn.Conv2d(num_channels, num_channels, (9, 1), padding=(4, 0), bias=False)
                                    for _ in range(iteration))
        bound = math.sqrt(2.0 / (num_channels * 9 * 5))
        for convs in (self.conv_d, self.conv_u, self.conv_r, self.conv_l):
            for i in convs:
                nn.init.uniform_(i.weight, -bound, bound)

    def forward(self, x):
        y = x
        h, w = y.shape[-2:]
        if 2 ** self.iteration > max(h, w):
            print('Too many iterations for RESA, your image size may be too small.')

        # We do indexing here to avoid extra input parameters at __init__(), with almost none computation overhead.
        # Also, now it won't block arbitrary shaped input.
        # Down
        for i in range(self.iteration):
            idx = (torch.arange(h) + h // 2 ** (self.iteration - i)) % h
            y.add_(self.alpha * F.relu(self.conv_d[i](y[:, :, idx, :])))
        # Up
        for i in range(self.iteration):
            idx = (torch.arange(h) - h // 2 ** (self.iteration - i)) % h
            y.add_(self.alpha * F.relu(self.conv_u[i](y[:, :, idx, :])))
        # Right
        for i in range(self.iteration):
            idx = (torch.arange(w) + w // 2 ** (self.iteration - i)) % w
            y.add_(self.alpha * F.relu(self.conv_r[i](y[:, :, :, idx])))
        # Left
        for i in range(self.iteration):
            idx = (torch.arange(w) - w // 2 ** (self.iteration - i)) % w
            y.add_(self.alpha * F.relu(self.conv_l[i](y[:, :, :, idx])))

        return y


class RESANet(nn.Module):
    def __init__(self, num_classes=5, channels=32):
        super(RESANet, self).__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 64, 3, stride=8, padding=1), nn.ReLU())  # stand-in, stride 8
        self.channel_reducer = nn.Conv2d(64, channels, 1, bias=False)  # RESAReducer(bn_relu=False)
        self.spatial_conv = RESA(num_channels=channels)
        self.decoder = nn.Conv2d(channels, num_classes, 1)

    def forward(self, x):
        out = self.backbone(x)
        out = self.channel_reducer(out)
        out = self.spatial_conv(out)
        return F.interpolate(self.decoder(out), scale_factor=8, mode='bilinear', align_corners=True)


def make_model():
    return RESANet().eval()


def example_inputs():
    return (torch.randn(1, 3, 288, 800),)


def other_inputs():
    return [(torch.randn(2, 3, 360, 640),), (torch.randn(3, 3, 320, 512),)]


def probe_inputs():
    return other_inputs()
