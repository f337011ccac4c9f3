"""DEXTR (Deep Extreme Cut): a 4-channel (RGB + extreme-point heatmap) dilated ResNet with the PSP classifier
(`classifier='psp'`), whose PSPModule pools with `nn.AdaptiveAvgPool2d(output_size=(size, size))` for sizes
(1, 2, 3, 6); exporting `dextr_pascal-sbd.pth` fails with "ONNX export failed: Couldn't export operator
aten::adaptive_avg_pool2d" (a plain resnet101 backbone exports fine).

Source: https://github.com/scaelles/DEXTR-PyTorch/issues/26
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-12"

affine_par = True


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, dilation_=1, downsample=None):
        super(Bottleneck, self).__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=1, stride=stride, bias=False)
        self.bn1 = nn.BatchNorm2d(planes, affine=affine_par)
        padding = 1
        if dilation_ == 2:
            padding = 2
        elif dilation_ == 4:
            padding = 4
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=padding, bias=False, dilation=dilation_)
        self.bn2 = nn.BatchNorm2d(planes, affine=affine_par)
        self.conv3 = nn.Conv2d(planes, planes * 4, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4, affine=affine_par)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        residual = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            residual = self.downsample(x)
        out += residual
        return self.relu(out)


class PSPModule(nn.Module):
    """
    Pyramid Scene Parsing module
    """
    def __init__(self, in_features=2048, out_features=512, sizes=(1, 2, 3, 6), n_classes=1):
        super(PSPModule, self).__init__()
        self.stages = []
        self.stages = nn.ModuleList([self._make_stage_1(in_features, size) for size in sizes])
        self.bottleneck = self._make_stage_2(in_features * (len(sizes)//4 + 1), out_features)
        self.relu = nn.ReLU()
        self.final = nn.Conv2d(out_features, n_classes, kernel_size=1)

    def _make_stage_1(self, in_features, size):
        prior = nn.AdaptiveAvgPool2d(output_size=(size, size))
        conv = nn.Conv2d(in_features, in_features//4, kernel_size=1, bias=False)
        bn = nn.BatchNorm2d(in_features//4, affine=affine_par)
        relu = nn.ReLU(inplace=True)
        return nn.Sequential(prior, conv, bn, relu)

    def _make_stage_2(self, in_features, out_features):
        conv = nn.Conv2d(in_features, out_features, kernel_size=1, bias=False)
        bn = nn.BatchNorm2d(out_features, affine=affine_par)
        relu = nn.ReLU(inplace=True)
        return nn.Sequential(conv, bn, relu)

    def forward(self, feats):
        h, w = feats.size(2), feats.size(3)
        priors = [F.upsample(input=stage(feats), size=(h, w), mode='bilinear') for stage in self.stages]
        priors.append(feats)
        bottle = self.relu(self.bottleneck(torch.cat(priors, 1)))
        out = self.final(bottle)
        return out


class ResNet(nn.Module):
    """deeplab_resnet.ResNet trimmed to one Bottleneck per stage (strides (2, 2, 2, 1, 1), dilations (2, 4))."""

    def __init__(self, n_classes=1, nInputChannels=4, dilations=(2, 4), strides=(2, 2, 2, 1, 1)):
        super(ResNet, self).__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(nInputChannels, 64, kernel_size=7, stride=strides[0], padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64, affine=affine_par)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=strides[1], padding=1, ceil_mode=False)
        self.layer1 = self._make_layer(64)
        self.layer2 = self._make_layer(128, stride=strides[2])
        self.layer3 = self._make_layer(256, stride=strides[3], dilation__=dilations[0])
        self.layer4 = self._make_layer(512, stride=strides[4], dilation__=dilations[1])
        self.layer5 = PSPModule(in_features=2048, out_features=512, sizes=(1, 2, 3, 6), n_classes=n_classes)

    def _make_layer(self, planes, stride=1, dilation__=1):
        downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, kernel_size=1, stride=stride, bias=False),
                                   nn.BatchNorm2d(planes * 4, affine=affine_par))
        layer = Bottleneck(self.inplanes, planes, stride, dilation_=dilation__, downsample=downsample)
        self.inplanes = planes * 4
        return layer

    def forward(self, x, bbox=None):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)
        if self.layer5 is not None:
            x = self.layer5(x)
        return x


def make_model():
    return ResNet(n_classes=1, nInputChannels=4).eval()


def example_inputs():
    return (torch.randn(1, 4, 200, 200),)


def other_inputs():
    return [(torch.randn(2, 4, 136, 176),), (torch.randn(1, 4, 232, 160),)]


def probe_inputs():
    return other_inputs()
