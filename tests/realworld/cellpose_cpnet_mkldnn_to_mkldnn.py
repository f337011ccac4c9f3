"""Cellpose's CPnet (a residual U-Net with a style vector) built with mkldnn=True converts its input
with `data.to_mkldnn()` and hops between MKL-DNN and dense layouts (`to_dense()` / `to_mkldnn()`)
around the style and upsampling steps; torch.onnx.export of `CellposeModel(...).net` fails with
"Exporting the operator 'aten::to_mkldnn' to ONNX opset version 11 is not supported".

Source: https://github.com/pytorch/pytorch/issues/114188
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"data": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-15"


def batchconv(in_channels, out_channels, sz):
    return nn.Sequential(
        nn.BatchNorm2d(in_channels, eps=1e-5),
        nn.ReLU(inplace=True),
        nn.Conv2d(in_channels, out_channels, sz, padding=sz//2),
    )


def batchconv0(in_channels, out_channels, sz):
    return nn.Sequential(
        nn.BatchNorm2d(in_channels, eps=1e-5),
        nn.Conv2d(in_channels, out_channels, sz, padding=sz//2),
    )


class resdown(nn.Module):
    def __init__(self, in_channels, out_channels, sz):
        super().__init__()
        self.conv = nn.Sequential()
        self.proj = batchconv0(in_channels, out_channels, 1)
        for t in range(4):
            if t == 0:
                self.conv.add_module('conv_%d' % t, batchconv(in_channels, out_channels, sz))
            else:
                self.conv.add_module('conv_%d' % t, batchconv(out_channels, out_channels, sz))

    def forward(self, x):
        x = self.proj(x) + self.conv[1](self.conv[0](x))
        x = x + self.conv[3](self.conv[2](x))
        return x


class downsample(nn.Module):
    def __init__(self, nbase, sz):
        super().__init__()
        self.down = nn.Sequential()
        self.maxpool = nn.MaxPool2d(2, 2)
        for n in range(len(nbase)-1):
            self.down.add_module('res_down_%d' % n, resdown(nbase[n], nbase[n+1], sz))

    def forward(self, x):
        xd = []
        for n in range(len(self.down)):
            if n > 0:
                y = self.maxpool(xd[n-1])
            else:
                y = x
            xd.append(self.down[n](y))
        return xd


class batchconvstyle(nn.Module):
    def __init__(self, in_channels, out_channels, style_channels, sz):
        super().__init__()
        self.conv = batchconv(in_channels, out_channels, sz)
        self.full = nn.Linear(style_channels, out_channels)

    def forward(self, style, x, mkldnn=False, y=None):
        if y is not None:
            x = x + y
        feat = self.full(style)
        if mkldnn:
            x = x.to_dense()
            y = (x + feat.unsqueeze(-1).unsqueeze(-1)).to_mkldnn()
        else:
            y = x + feat.unsqueeze(-1).unsqueeze(-1)
        y = self.conv(y)
        return y


class make_style(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()

    def forward(self, x0):
        style = F.avg_pool2d(x0, kernel_size=(x0.shape[-2], x0.shape[-1]))
        style = self.flatten(style)
        style = style / torch.sum(style**2, axis=1, keepdim=True)**.5
        return style


class CPnet(nn.Module):
    def __init__(self, nbase=[2, 16, 16], nout=3, sz=3, mkldnn=True):
        super().__init__()
        self.mkldnn = mkldnn
        self.downsample = downsample(nbase, sz)
        self.make_style = make_style()
        self.upsampling = nn.Upsample(scale_factor=2, mode='nearest')
        self.up0 = batchconvstyle(nbase[-1], nbase[1], nbase[-1], sz)
        self.up1 = batchconvstyle(nbase[1], nbase[1], nbase[-1], sz)
        self.output = batchconv(nbase[1], nout, 1)

    def forward(self, data):
        if self.mkldnn:
            data = data.to_mkldnn()
        T0 = self.downsample(data)
        if self.mkldnn:
            style = self.make_style(T0[-1].to_dense())
        else:
            style = self.make_style(T0[-1])
        x = self.up0(style, T0[-1], mkldnn=self.mkldnn)
        if self.mkldnn:
            x = self.upsampling(x.to_dense()).to_mkldnn()
        else:
            x = self.upsampling(x)
        x = self.up1(style, x, y=T0[0], mkldnn=self.mkldnn)
        T0 = self.output(x)
        if self.mkldnn:
            T0 = T0.to_dense()
        return T0, style


def make_model():
    return CPnet().eval()


def example_inputs():
    return (torch.randn(1, 2, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 2, 48, 64),), (torch.randn(3, 2, 16, 40),)]


def probe_inputs():
    return other_inputs()
