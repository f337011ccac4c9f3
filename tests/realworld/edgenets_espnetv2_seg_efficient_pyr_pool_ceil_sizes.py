"""EdgeNets ESPNetv2 segmentation: the EfficientPyrPool decoder computes its pyramid sizes in Python from
the feature map size (`int(math.ceil(height * scale))`, clamped with `h_s if h_s > 5 else 5`) and feeds
them to adaptive_avg_pool2d / interpolate; torch.onnx.export of the segmentation model fails with
"Failed to export an ONNX attribute, since it's not constant, please try to make things (e.g., kernel
size) static if possible".

Source: https://github.com/sacmehta/EdgeNets/issues/1
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-32"


class CBR(nn.Module):
    def __init__(self, nIn, nOut, kSize, stride=1, dilation=1, groups=1):
        super().__init__()
        padding = int((kSize - 1) / 2) * dilation
        self.cbr = nn.Sequential(
            nn.Conv2d(nIn, nOut, kSize, stride=stride, padding=padding, bias=False, groups=groups, dilation=dilation),
            nn.BatchNorm2d(nOut),
            nn.PReLU(nOut)
        )

    def forward(self, x):
        return self.cbr(x)


class BR(nn.Module):
    def __init__(self, nOut):
        super().__init__()
        self.br = nn.Sequential(nn.BatchNorm2d(nOut), nn.PReLU(nOut))

    def forward(self, x):
        return self.br(x)


class Shuffle(nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        batchsize, num_channels, height, width = x.data.size()
        channels_per_group = num_channels // self.groups
        x = x.view(batchsize, self.groups, channels_per_group, height, width)
        x = torch.transpose(x, 1, 2).contiguous()
        x = x.view(batchsize, -1, height, width)
        return x


class EfficientPyrPool(nn.Module):
    """Efficient Pyramid Pooling Module"""

    def __init__(self, in_planes, proj_planes, out_planes, scales=[2.0, 1.5, 1.0, 0.5, 0.1], last_layer_br=True):
        super(EfficientPyrPool, self).__init__()
        self.stages = nn.ModuleList()
        scales.sort(reverse=True)

        self.projection_layer = CBR(in_planes, proj_planes, 1, 1)
        for _ in enumerate(scales):
            self.stages.append(nn.Conv2d(proj_planes, proj_planes, kernel_size=3, stride=1, padding=1, bias=False, groups=proj_planes))

        self.merge_layer = nn.Sequential(
            BR(proj_planes * len(scales)),
            Shuffle(groups=len(scales)),
            CBR(proj_planes * len(scales), proj_planes, 3, 1, groups=proj_planes),
            nn.Conv2d(proj_planes, out_planes, kernel_size=1, stride=1, bias=not last_layer_br),
        )
        if last_layer_br:
            self.br = BR(out_planes)
        self.last_layer_br = last_layer_br
        self.scales = scales

    def forward(self, x):
        hs = []
        x = self.projection_layer(x)
        height, width = x.size()[2:]
        for i, stage in enumerate(self.stages):
            h_s = int(math.ceil(height * self.scales[i]))
            w_s = int(math.ceil(width * self.scales[i]))
            h_s = h_s if h_s > 5 else 5
            w_s = w_s if w_s > 5 else 5
            if self.scales[i] < 1.0:
                h = F.adaptive_avg_pool2d(x, output_size=(h_s, w_s))
                h = stage(h)
                h = F.interpolate(h, (height, width), mode='bilinear', align_corners=True)
            elif self.scales[i] > 1.0:
                h = F.interpolate(x, (h_s, w_s), mode='bilinear', align_corners=True)
                h = stage(h)
                h = F.adaptive_avg_pool2d(h, output_size=(height, width))
            else:
                h = stage(x)
            hs.append(h)

        out = torch.cat(hs, dim=1)
        out = self.merge_layer(out)
        if self.last_layer_br:
            return self.br(out)
        return out


class ESPNetv2SegmentationLite(nn.Module):
    """Strided-conv stand-in for the EESPNet base net, then the bottom-up EfficientPyrPool decoder."""

    def __init__(self, classes=21):
        super().__init__()
        self.level1 = CBR(3, 16, 3, 2)
        self.level2 = CBR(16, 32, 3, 2)
        self.level3 = CBR(32, 64, 3, 2)
        self.bu_dec_l1 = EfficientPyrPool(in_planes=64, proj_planes=10, out_planes=32)
        self.merge = CBR(32, 32, 1, 1)
        self.bu_dec_l2 = EfficientPyrPool(in_planes=32, proj_planes=10, out_planes=classes, last_layer_br=False)

    def upsample(self, x):
        return F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)

    def forward(self, x):
        x_size = (x.size(2), x.size(3))
        enc_out_l1 = self.level1(x)
        enc_out_l2 = self.level2(enc_out_l1)
        enc_out_l3 = self.level3(enc_out_l2)
        bu_out = self.bu_dec_l1(enc_out_l3)
        bu_out = self.upsample(bu_out)
        bu_out = self.merge(enc_out_l2) + bu_out
        bu_out = self.bu_dec_l2(bu_out)
        return F.interpolate(bu_out, size=x_size, mode='bilinear', align_corners=True)


def make_model():
    return ESPNetv2SegmentationLite().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 320),)


def other_inputs():
    return [(torch.randn(2, 3, 192, 256),), (torch.randn(1, 3, 320, 224),)]


def probe_inputs():
    return other_inputs()
