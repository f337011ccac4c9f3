"""IGEV-Stereo's feature network upsamples with `Conv2x` (core/submodule.py): a stride-2 deconv, then
`if x.shape != rem.shape: x = F.interpolate(x, size=(rem.shape[-2], rem.shape[-1]), mode='nearest')` before the
skip concat. Converting IGEV to ONNX only works when the export image is "a multiplication of 64": the shape
comparison is decided once at the export resolution, so other left/right image sizes break.

Source: https://github.com/gangweix/IGEV/issues/65
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-26"


class BasicConv(nn.Module):
    def __init__(self, in_channels, out_channels, deconv=False, is_3d=False, bn=True, relu=True, **kwargs):
        super(BasicConv, self).__init__()
        self.relu = relu
        self.use_bn = bn
        if deconv:
            self.conv = nn.ConvTranspose2d(in_channels, out_channels, bias=False, **kwargs)
        else:
            self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        x = self.conv(x)
        if self.use_bn:
            x = self.bn(x)
        if self.relu:
            x = nn.LeakyReLU()(x)
        return x


class Conv2x(nn.Module):
    def __init__(self, in_channels, out_channels, deconv=False, is_3d=False, concat=True, keep_concat=True, bn=True, relu=True):
        super(Conv2x, self).__init__()
        self.concat = concat
        kernel = 4 if deconv else 3
        self.conv1 = BasicConv(in_channels, out_channels, deconv, is_3d, bn=True, relu=True, kernel_size=kernel, stride=2, padding=1)
        if self.concat:
            mul = 2 if keep_concat else 1
            self.conv2 = BasicConv(out_channels*2, out_channels*mul, False, is_3d, bn, relu, kernel_size=3, stride=1, padding=1)
        else:
            self.conv2 = BasicConv(out_channels, out_channels, False, is_3d, bn, relu, kernel_size=3, stride=1, padding=1)

    def forward(self, x, rem):
        x = self.conv1(x)
        if x.shape != rem.shape:
            x = F.interpolate(
                x,
                size=(rem.shape[-2], rem.shape[-1]),
                mode='nearest')
        if self.concat:
            x = torch.cat((x, rem), 1)
        else:
            x = x + rem
        x = self.conv2(x)
        return x


class Feature(nn.Module):
    def __init__(self):
        super(Feature, self).__init__()
        self.conv4 = BasicConv(3, 16, kernel_size=3, stride=4, padding=1)
        self.conv8 = BasicConv(16, 24, kernel_size=3, stride=2, padding=1)
        self.conv16 = BasicConv(24, 32, kernel_size=3, stride=2, padding=1)
        self.conv32 = BasicConv(32, 48, kernel_size=3, stride=2, padding=1)
        self.deconv32_16 = Conv2x(48, 32, deconv=True, concat=True)
        self.deconv16_8 = Conv2x(64, 24, deconv=True, concat=True)
        self.deconv8_4 = Conv2x(48, 16, deconv=True, concat=True)

    def forward(self, x):
        x4 = self.conv4(x)
        x8 = self.conv8(x4)
        x16 = self.conv16(x8)
        x32 = self.conv32(x16)
        x16 = self.deconv32_16(x32, x16)
        x8 = self.deconv16_8(x16, x8)
        x4 = self.deconv8_4(x8, x4)
        return x4


def make_model():
    return Feature().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 192),)


def other_inputs():
    return [(torch.randn(2, 3, 136, 200),), (torch.randn(1, 3, 100, 164),)]


def probe_inputs():
    return other_inputs()
