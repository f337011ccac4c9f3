"""pytorch-hair-segmentation PSPNet (SqueezeNet 1.1 backbone) for ailia: the PyramidPoolingModule pools the
512-channel feature map with `nn.AdaptiveAvgPool2d(size)` for sizes (1, 2, 3, 6); at 256x256 input that map is
15x15, and the ONNX export fails on aten::adaptive_avg_pool2d (only resolutions giving a multiple of 6 export).

Source: https://github.com/ailia-ai/ailia-models/issues/155
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-16"


class Fire(nn.Module):
    # torchvision.models.squeezenet.Fire
    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return torch.cat(
            [self.expand1x1_activation(self.expand1x1(x)), self.expand3x3_activation(self.expand3x3(x))], 1)


def squeezenet1_1_features():
    # squeezenet1_1().features with channels scaled down by 4
    return nn.Sequential(
        nn.Conv2d(3, 16, kernel_size=3, stride=2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(16, 4, 16, 16),
        Fire(32, 4, 16, 16),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(32, 8, 32, 32),
        Fire(64, 8, 32, 32),
        nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        Fire(64, 12, 48, 48),
        Fire(96, 12, 48, 48),
        Fire(96, 16, 64, 64),
        Fire(128, 16, 64, 64),
    )


class SqueezeNetExtractor(nn.Module):
    def __init__(self):
        super(SqueezeNetExtractor, self).__init__()
        features = squeezenet1_1_features()
        self.feature1 = features[:2]
        self.feature2 = features[2:5]
        self.feature3 = features[5:8]
        self.feature4 = features[8:]

    def forward(self, x):
        f1 = self.feature1(x)
        f2 = self.feature2(f1)
        f3 = self.feature3(f2)
        f4 = self.feature4(f3)
        return f4, f3


class PyramidPoolingModule(nn.Module):
    def __init__(self, in_channels, sizes=(1, 2, 3, 6), output_size=(256, 256)):
        super(PyramidPoolingModule, self).__init__()
        pyramid_levels = len(sizes)
        out_channels = in_channels // pyramid_levels

        pooling_layers = nn.ModuleList()
        for size in sizes:
            layers = [nn.AdaptiveAvgPool2d(size), nn.Conv2d(in_channels, out_channels, kernel_size=1)]
            pyramid_layer = nn.Sequential(*layers)
            pooling_layers.append(pyramid_layer)

        self.pooling_layers = pooling_layers

    def forward(self, x):
        h, w = x.size(2), x.size(3)
        features = [x]
        for pooling_layer in self.pooling_layers:
            # pool with different sizes
            pooled = pooling_layer(x)
            # upsample to original size
            upsampled = F.upsample(pooled, size=(h, w), mode='bilinear')

            features.append(upsampled)
        return torch.cat(features, dim=1)


class PSPUpsample(nn.Module):
    def __init__(self, in_channels, out_channels, upsample_size=None):
        super().__init__()
        self.upsample_size = upsample_size
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU()
        )

    def forward(self, x):
        size = 2 * x.size(2), 2 * x.size(3)
        if self.upsample_size is not None:
            size = self.upsample_size
        p = F.upsample(x, size=size, mode='bilinear')
        return self.conv(p)


class PSPNetWithSqueezeNet(nn.Module):
    def __init__(self, num_class=1, img_size=256, sizes=(1, 2, 3, 6)):
        super().__init__()
        self.base_network = SqueezeNetExtractor()
        self.psp = PyramidPoolingModule(in_channels=128, sizes=sizes)
        self.drop_1 = nn.Dropout2d(p=0.3)

        self.up_1 = PSPUpsample(256, 64)
        self.up_2 = PSPUpsample(64, 16)
        self.up_3 = PSPUpsample(16, 16, img_size)

        self.drop_2 = nn.Dropout2d(p=0.15)
        self.final = nn.Sequential(
            nn.Conv2d(16, num_class, kernel_size=1),
        )

    def forward(self, x):
        f, class_f = self.base_network(x)
        p = self.psp(f)
        p = self.drop_1(p)
        p = self.up_1(p)
        p = self.drop_2(p)

        p = self.up_2(p)
        p = self.drop_2(p)

        p = self.up_3(p)
        p = self.drop_2(p)
        return self.final(p)


def make_model():
    return PSPNetWithSqueezeNet().eval()


def example_inputs():
    return (torch.randn(2, 3, 256, 256),)


def other_inputs():
    return [(torch.randn(1, 3, 256, 256),), (torch.randn(3, 3, 256, 256),)]


def probe_inputs():
    return other_inputs()
