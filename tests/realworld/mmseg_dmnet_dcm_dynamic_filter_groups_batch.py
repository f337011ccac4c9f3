"""MMSegmentation DMNet head (DMHead/DCM) exported through mmdeploy with dynamic axes: each DCM
builds a per-sample filter with `generated_filter.view(b * c, 1, k, k)` from the input's shape and runs
`F.conv2d(x.view(1, b * c, h, w), weight=generated_filter, groups=b * c)`; the export of
`dcm_modules.0` fails on the padded input of that convolution (torch2onnx "Call id: 0 failed").

Source: https://github.com/open-mmlab/mmdeploy/issues/2326
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "views"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-20"


class ConvModule(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super().__init__(
            nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=False),
            nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))


class DCM(nn.Module):
    def __init__(self, filter_size, fusion, in_channels, channels):
        super().__init__()
        self.filter_size = filter_size
        self.fusion = fusion
        self.in_channels = in_channels
        self.channels = channels
        self.filter_gen_conv = nn.Conv2d(self.in_channels, self.channels, 1, 1, 0)
        self.input_redu_conv = ConvModule(self.in_channels, self.channels, 1)
        self.norm = nn.BatchNorm2d(self.channels)
        self.activate = nn.ReLU(inplace=True)

    def forward(self, x):
        """Forward function."""
        generated_filter = self.filter_gen_conv(
            F.adaptive_avg_pool2d(x, self.filter_size))
        x = self.input_redu_conv(x)
        b, c, h, w = x.shape
        # [1, b * c, h, w], c = self.channels
        x = x.view(1, b * c, h, w)
        # [b * c, 1, filter_size, filter_size]
        generated_filter = generated_filter.view(b * c, 1, self.filter_size,
                                                 self.filter_size)
        pad = (self.filter_size - 1) // 2
        if (self.filter_size - 1) % 2 == 0:
            p2d = (pad, pad, pad, pad)
        else:
            p2d = (pad + 1, pad, pad + 1, pad)
        x = F.pad(input=x, pad=p2d, mode='constant', value=0)
        # [1, b * c, h, w]
        output = F.conv2d(input=x, weight=generated_filter, groups=b * c)
        # [b, c, h, w]
        output = output.view(b, c, h, w)
        if self.norm is not None:
            output = self.norm(output)
        output = self.activate(output)
        return output


class DMHead(nn.Module):
    def __init__(self, in_channels=16, channels=8, num_classes=5, filter_sizes=(1, 3, 5, 7)):
        super().__init__()
        self.dcm_modules = nn.ModuleList(
            [DCM(fs, False, in_channels, channels) for fs in filter_sizes])
        self.bottleneck = ConvModule(in_channels + len(filter_sizes) * channels, channels, 3,
                                     padding=1)
        self.conv_seg = nn.Conv2d(channels, num_classes, 1)

    def forward(self, x):
        dcm_outs = [x]
        for dcm_module in self.dcm_modules:
            dcm_outs.append(dcm_module(x))
        dcm_outs = torch.cat(dcm_outs, dim=1)
        output = self.bottleneck(dcm_outs)
        return self.conv_seg(output)


def make_model():
    return DMHead().eval()


def example_inputs():
    return (torch.randn(2, 16, 24, 32),)


def other_inputs():
    return [(torch.randn(3, 16, 20, 28),), (torch.randn(1, 16, 32, 16),)]


def probe_inputs():
    return other_inputs()
