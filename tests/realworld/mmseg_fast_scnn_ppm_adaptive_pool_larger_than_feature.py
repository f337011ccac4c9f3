"""mmsegmentation Fast-SCNN exported with `--shape 128 256`: the Global Feature Extractor's PPM runs
`nn.AdaptiveAvgPool2d(pool_scale)` for pool_scales (1, 2, 3, 6) on a 1/32 feature map of only 4x8, so the
exported average pool gets an invalid stride (0) and onnxruntime crashes on the model.

Source: https://github.com/open-mmlab/mmsegmentation/issues/1253
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-16"


def resize(input, size=None, scale_factor=None, mode='nearest', align_corners=None):
    return F.interpolate(input, size, scale_factor, mode, align_corners)


class ConvModule(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, act=True):
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False),
                  nn.BatchNorm2d(out_channels)]
        if act:
            layers.append(nn.ReLU(inplace=True))
        super().__init__(*layers)


class PPM(nn.ModuleList):
    def __init__(self, pool_scales, in_channels, channels, align_corners):
        super(PPM, self).__init__()
        self.pool_scales = pool_scales
        self.align_corners = align_corners
        self.in_channels = in_channels
        self.channels = channels
        for pool_scale in pool_scales:
            self.append(
                nn.Sequential(
                    nn.AdaptiveAvgPool2d(pool_scale),
                    ConvModule(self.in_channels, self.channels, 1)))

    def forward(self, x):
        ppm_outs = []
        for ppm in self:
            ppm_out = ppm(x)
            upsampled_ppm_out = resize(
                ppm_out,
                size=x.size()[2:],
                mode='bilinear',
                align_corners=self.align_corners)
            ppm_outs.append(upsampled_ppm_out)
        return ppm_outs


class GlobalFeatureExtractor(nn.Module):
    def __init__(self, in_channels=64, block_channels=(64, 96, 128), out_channels=128,
                 strides=(2, 2, 1), pool_scales=(1, 2, 3, 6), align_corners=False):
        super(GlobalFeatureExtractor, self).__init__()
        self.bottleneck1 = ConvModule(in_channels, block_channels[0], 3, strides[0], 1)
        self.bottleneck2 = ConvModule(block_channels[0], block_channels[1], 3, strides[1], 1)
        self.bottleneck3 = ConvModule(block_channels[1], block_channels[2], 3, strides[2], 1)
        self.ppm = PPM(pool_scales, block_channels[2], block_channels[2] // 4,
                       align_corners=align_corners)
        self.out = ConvModule(block_channels[2] * 2, out_channels, 1)

    def forward(self, x):
        x = self.bottleneck1(x)
        x = self.bottleneck2(x)
        x = self.bottleneck3(x)
        x = torch.cat([x, *self.ppm(x)], dim=1)
        x = self.out(x)
        return x


class FastSCNN(nn.Module):
    def __init__(self, in_channels=3, num_classes=19, align_corners=False):
        super(FastSCNN, self).__init__()
        self.align_corners = align_corners
        self.learning_to_downsample = nn.Sequential(
            ConvModule(in_channels, 32, 3, 2, 1), ConvModule(32, 48, 3, 2, 1), ConvModule(48, 64, 3, 2, 1))
        self.global_feature_extractor = GlobalFeatureExtractor(64, align_corners=align_corners)
        self.conv_higher_res = ConvModule(64, 128, 1, act=False)
        self.conv_lower_res = ConvModule(128, 128, 1, act=False)
        self.cls_seg = nn.Conv2d(128, num_classes, 1)

    def forward(self, x):
        higher_res_features = self.learning_to_downsample(x)
        lower_res_features = self.global_feature_extractor(higher_res_features)
        lower_res_features = resize(lower_res_features, size=higher_res_features.size()[2:],
                                    mode='bilinear', align_corners=self.align_corners)
        out = F.relu(self.conv_higher_res(higher_res_features) + self.conv_lower_res(lower_res_features))
        return self.cls_seg(out)


def make_model():
    return FastSCNN().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 256),)


def other_inputs():
    return [(torch.randn(1, 3, 128, 256),), (torch.randn(3, 3, 128, 256),)]


def probe_inputs():
    return other_inputs()
