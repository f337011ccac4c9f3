"""MobileNetV3-small segmentation (Tramac/Lightweight-Segmentation) whose Lite R-ASPP head was modified to pool
with `nn.AdaptiveAvgPool2d((8, 8))` in the sigmoid-gate branch; exporting to ONNX for TensorRT fails with
"Unsupported: ONNX export of operator adaptive_avg_pool2d, since output size is not factor of input size".

Source: https://github.com/Tramac/Lightweight-Segmentation/issues/21
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-12"


def _conv_bn_hswish(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, oup, 3, stride, 1, bias=False), nn.BatchNorm2d(oup), nn.Hardswish(True))


class _LRASPP(nn.Module):
    """Lite R-ASPP"""

    def __init__(self, in_channels, norm_layer, **kwargs):
        super(_LRASPP, self).__init__()
        out_channels = 128
        self.b0 = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            norm_layer(out_channels),
            nn.ReLU(True)
        )
        self.b1 = nn.Sequential(
            nn.AdaptiveAvgPool2d((8, 8)),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, x):
        size = x.size()[2:]
        feat1 = self.b0(x)
        feat2 = self.b1(x)
        feat2 = F.interpolate(feat2, size, mode='bilinear', align_corners=True)
        x = feat1 * feat2  # check it
        return x


class _Head(nn.Module):
    def __init__(self, nclass, mode='small', norm_layer=nn.BatchNorm2d, **kwargs):
        super(_Head, self).__init__()
        in_channels = 960 if mode == 'large' else 576
        self.lr_aspp = _LRASPP(in_channels, norm_layer, **kwargs)
        self.project = nn.Conv2d(128, nclass, 1)

    def forward(self, x):
        x = self.lr_aspp(x)
        return self.project(x)


class MobileNetV3Seg(nn.Module):
    def __init__(self, nclass=19, mode='small'):
        super(MobileNetV3Seg, self).__init__()
        # stand-in for the mobilenetv3_small base network: c4 = 576 channels at stride 32
        self.base = nn.Sequential(_conv_bn_hswish(3, 16, 2), _conv_bn_hswish(16, 24, 2), _conv_bn_hswish(24, 40, 2),
                                  _conv_bn_hswish(40, 96, 2), _conv_bn_hswish(96, 576, 2))
        self.head = _Head(nclass, mode)

    def forward(self, x):
        size = x.size()[2:]
        c4 = self.base(x)
        outputs = list()
        x = self.head(c4)
        x = F.interpolate(x, size, mode='bilinear', align_corners=True)
        outputs.append(x)
        return tuple(outputs)


def make_model():
    return MobileNetV3Seg().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 416),)


def other_inputs():
    return [(torch.randn(2, 3, 256, 288),), (torch.randn(1, 3, 384, 544),)]


def probe_inputs():
    return other_inputs()
