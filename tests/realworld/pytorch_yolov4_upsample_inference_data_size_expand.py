"""pytorch-YOLOv4 neck `Upsample` (inference path used for ONNX/TensorRT): sizes are read with `x.data.size(0..3)` and
the target size is unpacked from `downsample4.size()`, then `x.view(B, C, H, 1, W, 1).expand(B, C, H, tH // H, W,
tW // W)`; the "Add support of dynamic batch size" commit rewrites it with `x.size(i)` because the `.data` sizes are
frozen when exporting with a dynamic batch axis.

Source: https://github.com/Tianxiaomo/pytorch-YOLOv4/commit/1ff5a1085ce0c1b35c2ea45b707166ac404e0b66
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "views"
FAMILY = "shape_math"
DYNAMIC = {"input": {0: "batch"}}
BLIND = "domains-61"


class Upsample(nn.Module):
    def __init__(self):
        super(Upsample, self).__init__()

    def forward(self, x, target_size, inference=False):
        assert (x.data.dim() == 4)
        _, _, tH, tW = target_size

        if inference:
            B = x.data.size(0)
            C = x.data.size(1)
            H = x.data.size(2)
            W = x.data.size(3)

            return x.view(B, C, H, 1, W, 1).expand(B, C, H, tH // H, W, tW // W).contiguous().view(B, C, tH, tW)
        else:
            return F.interpolate(x, size=(tH, tW), mode='nearest')


class Conv_Bn_Activation(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        pad = (kernel_size - 1) // 2
        self.conv = nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel_size, stride, pad, bias=False),
                                  nn.BatchNorm2d(out_channels), nn.LeakyReLU(0.1, inplace=True))

    def forward(self, x):
        return self.conv(x)


class Neck(nn.Module):
    def __init__(self, inference=True):
        super().__init__()
        self.inference = inference
        self.down3 = Conv_Bn_Activation(3, 16, 3, 8)
        self.down4 = Conv_Bn_Activation(16, 32, 3, 2)
        self.down5 = Conv_Bn_Activation(32, 64, 3, 2)
        self.conv7 = Conv_Bn_Activation(64, 32, 1, 1)
        self.upsample1 = Upsample()
        self.conv8 = Conv_Bn_Activation(32, 32, 1, 1)
        self.conv14 = Conv_Bn_Activation(64, 16, 1, 1)
        self.upsample2 = Upsample()
        self.conv15 = Conv_Bn_Activation(16, 16, 1, 1)

    def forward(self, input):
        downsample3 = self.down3(input)
        downsample4 = self.down4(downsample3)
        downsample5 = self.down5(downsample4)
        x7 = self.conv7(downsample5)
        up = self.upsample1(x7, downsample4.size(), self.inference)
        x8 = self.conv8(downsample4)
        x9 = torch.cat([x8, up], dim=1)
        x14 = self.conv14(x9)
        up = self.upsample2(x14, downsample3.size(), self.inference)
        x15 = self.conv15(downsample3)
        x16 = torch.cat([x15, up], dim=1)
        return x16, x9


def make_model():
    return Neck(inference=True).eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(3, 3, 128, 128),), (torch.randn(2, 3, 128, 128),)]


def probe_inputs():
    return other_inputs()
