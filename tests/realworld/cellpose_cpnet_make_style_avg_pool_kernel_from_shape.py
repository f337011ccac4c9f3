"""Cellpose's CPnet computes its style vector with `self.avg_pool(x0, kernel_size=x0.shape[2:])`,
a global average pool whose kernel is the feature map's own size; cellpose-cpp, which exports
cyto3's CPnet to ONNX for a C++ runtime, had to replace it with a fixed `kernel_size=[28, 28]`
(the 224-pixel tile / 8) and feed only fixed-size tiles, because the exported pool's kernel does not
follow the image size.

Source: https://github.com/ryouchinsa/cellpose-cpp/blob/master/resnet_torch.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"data": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-73"


def batchconv(in_channels, out_channels, sz, conv_3D=False):
    conv_layer = nn.Conv3d if conv_3D else nn.Conv2d
    batch_norm = nn.BatchNorm3d if conv_3D else nn.BatchNorm2d
    return nn.Sequential(
        batch_norm(in_channels, eps=1e-5, momentum=0.05),
        nn.ReLU(inplace=True),
        conv_layer(in_channels, out_channels, sz, padding=sz // 2),
    )


class downsample(nn.Module):

    def __init__(self, nbase, sz, conv_3D=False):
        super().__init__()
        self.down = nn.Sequential()
        self.maxpool = nn.MaxPool3d(2, stride=2) if conv_3D else nn.MaxPool2d(2, stride=2)
        for n in range(len(nbase) - 1):
            self.down.add_module("res_down_%d" % n, batchconv(nbase[n], nbase[n + 1], sz, conv_3D))

    def forward(self, x):
        xd = []
        for n in range(len(self.down)):
            if n > 0:
                y = self.maxpool(xd[n - 1])
            else:
                y = x
            xd.append(self.down[n](y))
        return xd


class batchconvstyle(nn.Module):

    def __init__(self, in_channels, out_channels, style_channels, sz, conv_3D=False):
        super().__init__()
        self.conv = batchconv(in_channels, out_channels, sz, conv_3D)
        self.full = nn.Linear(style_channels, out_channels)

    def forward(self, style, x, mkldnn=False, y=None):
        if y is not None:
            x = x + y
        feat = self.full(style)
        for k in range(len(x.shape[2:])):
            feat = feat.unsqueeze(-1)
        y = x + feat
        y = self.conv(y)
        return y


class resup(nn.Module):

    def __init__(self, in_channels, out_channels, style_channels, sz, conv_3D=False):
        super().__init__()
        self.conv = nn.Sequential()
        self.conv.add_module("conv_0", batchconv(in_channels, out_channels, sz, conv_3D=conv_3D))
        self.conv.add_module("conv_1", batchconvstyle(out_channels, out_channels, style_channels, sz,
                                                      conv_3D=conv_3D))
        self.proj = nn.Conv2d(in_channels, out_channels, 1)

    def forward(self, x, y, style, mkldnn=False):
        x = self.proj(x) + self.conv[1](style, self.conv[0](x), y=y, mkldnn=mkldnn)
        return x


class make_style(nn.Module):

    def __init__(self, conv_3D=False):
        super().__init__()
        self.flatten = nn.Flatten()
        self.avg_pool = F.avg_pool3d if conv_3D else F.avg_pool2d

    def forward(self, x0):
        style = self.avg_pool(x0, kernel_size=x0.shape[2:])
        style = self.flatten(style)
        style = style / torch.sum(style**2, axis=1, keepdim=True)**.5
        return style


class upsample(nn.Module):

    def __init__(self, nbase, sz, conv_3D=False):
        super().__init__()
        self.upsampling = nn.Upsample(scale_factor=2, mode="nearest")
        self.up = nn.Sequential()
        for n in range(1, len(nbase)):
            self.up.add_module("res_up_%d" % (n - 1),
                               resup(nbase[n], nbase[n - 1], nbase[-1], sz, conv_3D))

    def forward(self, style, xd, mkldnn=False):
        x = self.up[-1](xd[-1], xd[-1], style, mkldnn=mkldnn)
        for n in range(len(self.up) - 2, -1, -1):
            x = self.upsampling(x)
            x = self.up[n](x, xd[n], style, mkldnn=mkldnn)
        return x


class CPnet(nn.Module):

    def __init__(self, nbase, nout, sz, mkldnn=False, conv_3D=False):
        super().__init__()
        self.nbase = nbase
        self.nout = nout
        self.mkldnn = mkldnn
        self.style_on = True
        self.downsample = downsample(nbase, sz, conv_3D=conv_3D)
        nbaseup = nbase[1:]
        nbaseup.append(nbaseup[-1])
        self.upsample = upsample(nbaseup, sz, conv_3D=conv_3D)
        self.make_style = make_style(conv_3D=conv_3D)
        self.output = batchconv(nbaseup[0], nout, 1, conv_3D=conv_3D)

    def forward(self, data):
        T0 = self.downsample(data)
        style = self.make_style(T0[-1])
        style0 = style
        if not self.style_on:
            style = style * 0
        T1 = self.upsample(style, T0, self.mkldnn)
        T1 = self.output(T1)
        return T1, style0


def make_model():
    return CPnet([2, 8, 16, 32], 3, sz=3).eval()


def example_inputs():
    return (torch.randn(2, 2, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 2, 96, 48),), (torch.randn(1, 2, 32, 80),)]


def probe_inputs():
    return other_inputs()
