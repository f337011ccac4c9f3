"""mmsegmentation UNet decoder: UpConvBlock.forward runs `self.upsample(x)`, an InterpConv whose mmseg
`Upsample(scale_factor=2)` computes `size = [int(t * self.scale_factor) for t in x.shape[-2:]]` before
`resize`, so the UNet backbone cannot be exported with dynamic H/W (mmdeploy's PR rewrites UpConvBlock to
upsample with `size=skip.shape[-2:]` instead of `scale_factor`).

Source: https://github.com/open-mmlab/mmdeploy/pull/251
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-44"


def resize(input,
           size=None,
           scale_factor=None,
           mode='nearest',
           align_corners=None,
           warning=True):
    if warning:
        if size is not None and align_corners:
            input_h, input_w = tuple(int(x) for x in input.shape[2:])
            output_h, output_w = tuple(int(x) for x in size)
            if output_h > input_h or output_w > output_h:
                if ((output_h > 1 and output_w > 1 and input_h > 1
                     and input_w > 1) and (output_h - 1) % (input_h - 1)
                        and (output_w - 1) % (input_w - 1)):
                    warnings.warn(
                        f'When align_corners={align_corners}, '
                        'the output would more aligned if '
                        f'input size {(input_h, input_w)} is `x+1` and '
                        f'out size {(output_h, output_w)} is `nx+1`')
    if isinstance(size, torch.Size):
        size = tuple(int(x) for x in size)
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class Upsample(nn.Module):

    def __init__(self,
                 size=None,
                 scale_factor=None,
                 mode='nearest',
                 align_corners=None):
        super(Upsample, self).__init__()
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners

    def forward(self, x):
        if not self.size:
            size = [int(t * self.scale_factor) for t in x.shape[-2:]]
        else:
            size = self.size
        return resize(x, size, None, self.mode, self.align_corners)


def conv_module(in_channels, out_channels, kernel_size=3, stride=1, padding=1):
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
        nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))


class InterpConv(nn.Module):

    def __init__(self, in_channels, out_channels, conv_first=False,
                 upsample_cfg=dict(scale_factor=2, mode='bilinear', align_corners=False)):
        super(InterpConv, self).__init__()
        conv = conv_module(in_channels, out_channels, kernel_size=1, padding=0)
        upsample = Upsample(**upsample_cfg)
        if conv_first:
            self.interp_upsample = nn.Sequential(conv, upsample)
        else:
            self.interp_upsample = nn.Sequential(upsample, conv)

    def forward(self, x):
        out = self.interp_upsample(x)
        return out


class UpConvBlock(nn.Module):

    def __init__(self, in_channels, skip_channels, out_channels):
        super(UpConvBlock, self).__init__()
        self.conv_block = nn.Sequential(conv_module(2 * skip_channels, out_channels),
                                        conv_module(out_channels, out_channels))
        self.upsample = InterpConv(in_channels=in_channels, out_channels=skip_channels)

    def forward(self, skip, x):
        """Forward function."""

        x = self.upsample(x)
        out = torch.cat([skip, x], dim=1)
        out = self.conv_block(out)

        return out


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = conv_module(3, 16)
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), conv_module(16, 32))
        self.dec = UpConvBlock(32, 16, 16)
        self.cls = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        skip = self.enc1(x)
        y = self.enc2(skip)
        return self.cls(self.dec(skip, y))


def make_model():
    return TinyUNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(1, 3, 96, 128),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
