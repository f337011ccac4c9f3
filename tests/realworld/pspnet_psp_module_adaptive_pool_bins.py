"""PSPNet (bubbliiiing/pspnet-pytorch) pyramid pooling head: `nn.AdaptiveAvgPool2d(output_size=bin_sz)`
for bins 1, 2, 3, 6 on the backbone feature map, each upsampled back with F.interpolate and concatenated;
torch.onnx.export fails with "Unsupported: ONNX export of operator adaptive_avg_pool2d, since output size
is not factor of input size".

Source: https://github.com/bubbliiiing/pspnet-pytorch/issues/19
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class _PSPModule(nn.Module):
    def __init__(self, in_channels, pool_sizes, norm_layer):
        super(_PSPModule, self).__init__()
        out_channels = in_channels // len(pool_sizes)
        self.stages = nn.ModuleList([self._make_stages(in_channels, out_channels, pool_size, norm_layer)
                                     for pool_size in pool_sizes])
        self.bottleneck = nn.Sequential(
            nn.Conv2d(in_channels + (out_channels * len(pool_sizes)), out_channels, kernel_size=3, padding=1,
                      bias=False),
            norm_layer(out_channels),
            nn.ReLU(inplace=True),
            nn.Dropout2d(0.1)
        )

    def _make_stages(self, in_channels, out_channels, bin_sz, norm_layer):
        prior = nn.AdaptiveAvgPool2d(output_size=bin_sz)
        conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)
        bn = norm_layer(out_channels)
        relu = nn.ReLU(inplace=True)
        return nn.Sequential(prior, conv, bn, relu)

    def forward(self, features):
        h, w = features.size()[2], features.size()[3]
        pyramids = [features]
        pyramids.extend([F.interpolate(stage(features), size=(h, w), mode='bilinear', align_corners=True)
                         for stage in self.stages])
        output = self.bottleneck(torch.cat(pyramids, dim=1))
        return output


class PSPNet(nn.Module):
    """Stride-8 stand-in backbone + PSP head + classifier, upsampled to the input size."""

    def __init__(self, num_classes=21, out_channel=64, pool_sizes=(1, 2, 3, 6)):
        super(PSPNet, self).__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 48, 3, 2, 1, bias=False), nn.BatchNorm2d(48), nn.ReLU(inplace=True),
            nn.Conv2d(48, out_channel, 3, 2, 1, bias=False), nn.BatchNorm2d(out_channel), nn.ReLU(inplace=True))
        self.master_branch = nn.Sequential(
            _PSPModule(out_channel, pool_sizes=list(pool_sizes), norm_layer=nn.BatchNorm2d),
            nn.Conv2d(out_channel // 4, num_classes, kernel_size=1)
        )

    def forward(self, x):
        input_size = (x.size()[2], x.size()[3])
        x = self.backbone(x)
        output = self.master_branch(x)
        output = F.interpolate(output, size=input_size, mode='bilinear', align_corners=True)
        return output


def make_model():
    return PSPNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 128),)   # 16x16 feature map: not a multiple of the 3 and 6 bins


def other_inputs():
    return [(torch.randn(2, 3, 96, 160),), (torch.randn(1, 3, 200, 136),)]


def probe_inputs():
    return other_inputs()
