"""MONAI BasicUNet/FlexibleUNet decoder (medical segmentation): `UpCat.forward` with `is_pad=True` compares
`x_e.shape[-i - 1] != x_0.shape[-i - 1]` per spatial dim and builds the pad list `sp` in Python to
replicate-pad the upsampled features for odd edge lengths. MONAI PR 5296 documents that with
`is_pad=True` ("arbitrary size") the network is not supported by TensorRT, and MONAI's TensorRT bundles
set `is_pad=False` (inputs multiples of 32): the per-dim padding decision is fixed at export time.

Source: https://github.com/Project-MONAI/MONAI/pull/5296
"""
from typing import Optional

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-71"


class TwoConv(nn.Sequential):
    def __init__(self, in_chns, out_chns):
        super().__init__()
        for i, c in enumerate((in_chns, out_chns)):
            self.add_module(f"conv_{i}", nn.Sequential(
                nn.Conv2d(c, out_chns, 3, padding=1),
                nn.InstanceNorm2d(out_chns, affine=True),
                nn.LeakyReLU(0.1, inplace=True)))


class Down(nn.Sequential):
    def __init__(self, in_chns, out_chns):
        super().__init__()
        self.add_module("max_pooling", nn.MaxPool2d(kernel_size=2))
        self.add_module("convs", TwoConv(in_chns, out_chns))


class UpCat(nn.Module):
    def __init__(self, in_chns, cat_chns, out_chns, halves=True, is_pad=True):
        super().__init__()
        up_chns = in_chns // 2 if halves else in_chns
        self.upsample = nn.ConvTranspose2d(in_chns, up_chns, kernel_size=2, stride=2)
        self.convs = TwoConv(cat_chns + up_chns, out_chns)
        self.is_pad = is_pad

    def forward(self, x: torch.Tensor, x_e: Optional[torch.Tensor]):
        x_0 = self.upsample(x)

        if x_e is not None and torch.jit.isinstance(x_e, torch.Tensor):
            if self.is_pad:
                # handling spatial shapes due to the 2x maxpooling with odd edge lengths.
                dimensions = len(x.shape) - 2
                sp = [0] * (dimensions * 2)
                for i in range(dimensions):
                    if x_e.shape[-i - 1] != x_0.shape[-i - 1]:
                        sp[i * 2 + 1] = 1
                x_0 = torch.nn.functional.pad(x_0, sp, "replicate")
            x = self.convs(torch.cat([x_e, x_0], dim=1))  # input channels: (cat_chns + up_chns)
        else:
            x = self.convs(x_0)

        return x


class BasicUNet(nn.Module):
    def __init__(self, in_channels=1, out_channels=2, features=(8, 8, 16, 16, 32, 8)):
        super().__init__()
        fea = features
        self.conv_0 = TwoConv(in_channels, fea[0])
        self.down_1 = Down(fea[0], fea[1])
        self.down_2 = Down(fea[1], fea[2])
        self.down_3 = Down(fea[2], fea[3])
        self.down_4 = Down(fea[3], fea[4])
        self.upcat_4 = UpCat(fea[4], fea[3], fea[3])
        self.upcat_3 = UpCat(fea[3], fea[2], fea[2])
        self.upcat_2 = UpCat(fea[2], fea[1], fea[1])
        self.upcat_1 = UpCat(fea[1], fea[0], fea[5], halves=False)
        self.final_conv = nn.Conv2d(fea[5], out_channels, kernel_size=1)

    def forward(self, x: torch.Tensor):
        x0 = self.conv_0(x)
        x1 = self.down_1(x0)
        x2 = self.down_2(x1)
        x3 = self.down_3(x2)
        x4 = self.down_4(x3)
        u4 = self.upcat_4(x4, x3)
        u3 = self.upcat_3(u4, x2)
        u2 = self.upcat_2(u3, x1)
        u1 = self.upcat_1(u2, x0)
        logits = self.final_conv(u1)
        return logits


def make_model():
    return BasicUNet().eval()


def example_inputs():
    return (torch.randn(2, 1, 64, 48),)


def other_inputs():
    return [(torch.randn(3, 1, 37, 50),), (torch.randn(1, 1, 48, 71),)]


def probe_inputs():
    return other_inputs()
