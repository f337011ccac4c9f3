"""ESANet (RGB-D scene segmentation): the context module is a PSPNet-style PyramidPoolingModule with
`nn.AdaptiveAvgPool2d(bin)` for bins (1, 5) on the 1/32 encoder features; exporting at 256x256 (8x8 features)
fails with "ONNX export failed on adaptive_avg_pool2d because output size that are not factor of input size
not supported" (480x640 works only because 15x20 is divisible by 5).

Source: https://github.com/TUI-NICR/ESANet/issues/42
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"rgb": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


class ConvBNAct(nn.Sequential):
    def __init__(self, channels_in, channels_out, kernel_size,
                 activation=nn.ReLU(inplace=True), dilation=1, stride=1):
        super(ConvBNAct, self).__init__()
        padding = kernel_size // 2 + dilation - 1
        self.add_module('conv', nn.Conv2d(channels_in, channels_out,
                                          kernel_size=kernel_size,
                                          padding=padding,
                                          bias=False,
                                          dilation=dilation,
                                          stride=stride))
        self.add_module('bn', nn.BatchNorm2d(channels_out))
        self.add_module('act', activation)


class PyramidPoolingModule(nn.Module):
    def __init__(self, in_dim, out_dim, bins=(1, 2, 3, 6),
                 activation=nn.ReLU(inplace=True),
                 upsampling_mode='bilinear'):
        reduction_dim = in_dim // len(bins)
        super(PyramidPoolingModule, self).__init__()
        self.features = []
        self.upsampling_mode = upsampling_mode
        for bin in bins:
            self.features.append(nn.Sequential(
                nn.AdaptiveAvgPool2d(bin),
                ConvBNAct(in_dim, reduction_dim, kernel_size=1,
                          activation=activation)
            ))
        in_dim_last_conv = in_dim + reduction_dim * len(bins)
        self.features = nn.ModuleList(self.features)

        self.final_conv = ConvBNAct(in_dim_last_conv, out_dim,
                                    kernel_size=1, activation=activation)

    def forward(self, x):
        x_size = x.size()
        out = [x]
        for f in self.features:
            h, w = x_size[2:]
            y = f(x)
            if self.upsampling_mode == 'nearest':
                out.append(F.interpolate(y, (int(h), int(w)), mode='nearest'))
            elif self.upsampling_mode == 'bilinear':
                out.append(F.interpolate(y, (int(h), int(w)),
                                         mode='bilinear',
                                         align_corners=False))
            else:
                raise NotImplementedError(
                    'For the PyramidPoolingModule only nearest and bilinear '
                    'interpolation are supported. '
                    f'Got: {self.upsampling_mode}'
                )
        out = torch.cat(out, 1)
        out = self.final_conv(out)
        return out


class ESANetLite(nn.Module):
    """Stride-32 encoder stub, the 'ppm' context module (bins 1 and 5) and a classifier."""

    def __init__(self, num_classes=8):
        super().__init__()
        chans = [3, 16, 32, 64, 64, 128]
        self.encoder = nn.Sequential(*[ConvBNAct(chans[i], chans[i + 1], 3, stride=2) for i in range(5)])
        self.context_module = PyramidPoolingModule(128, 128, bins=(1, 5), upsampling_mode='bilinear')
        self.classifier = nn.Conv2d(128, num_classes, 3, padding=1)

    def forward(self, rgb):
        x = self.encoder(rgb)
        x = self.context_module(x)
        x = self.classifier(x)
        return F.interpolate(x, rgb.shape[-2:], mode='bilinear', align_corners=False)


def make_model():
    return ESANetLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 256),)


def other_inputs():
    return [(torch.randn(2, 3, 320, 192),), (torch.randn(3, 3, 224, 288),)]


def probe_inputs():
    return other_inputs()
