"""Segmentation UNet that center-crops its final map with torchvision's `center_crop`, whose
`int(round((image_height - crop_height) / 2.0))` on the traced sizes raises "TypeError: type Tensor
doesn't define __round__ method" when the model is traced for export.

Source: https://github.com/pytorch/vision/issues/4902
"""
import numbers

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-6"


# torchvision.transforms.functional.center_crop (tensor path), copied
def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    image_width, image_height = img.shape[-1], img.shape[-2]
    crop_height, crop_width = output_size
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return img[..., crop_top:crop_top + crop_height, crop_left:crop_left + crop_width]


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(DoubleConv, self).__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, out_channels, output_size, in_channels=3, features=[8, 16]):
        super(UNet, self).__init__()
        self.output_size = output_size
        self.ups = nn.ModuleList()
        self.downs = nn.ModuleList()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        for feature in features:
            self.downs.append(DoubleConv(in_channels, feature))
            in_channels = feature
        for feature in reversed(features):
            self.ups.append(nn.ConvTranspose2d(feature * 2, feature, kernel_size=2, stride=2))
            self.ups.append(DoubleConv(feature * 2, feature))
        self.bottleneck = DoubleConv(features[-1], features[-1] * 2)
        self.final_conv = nn.Conv2d(features[0], out_channels, kernel_size=1)

    def forward(self, x):
        skip_connections = []
        for down in self.downs:
            x = down(x)
            skip_connections.append(x)
            x = self.pool(x)
        x = self.bottleneck(x)
        skip_connections = skip_connections[::-1]
        for idx in range(0, len(self.ups), 2):
            x = self.ups[idx](x)
            skip_connection = skip_connections[idx // 2]
            concat_skip = torch.cat((skip_connection, x), dim=1)
            x = self.ups[idx + 1](concat_skip)
        final = self.final_conv(x)
        crop = center_crop(final, self.output_size)
        return crop


def make_model():
    return UNet(out_channels=2, output_size=12).eval()


def example_inputs():
    return (torch.randn(2, 3, 24, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 36, 20),), (torch.randn(1, 3, 16, 44),)]


def probe_inputs():
    return other_inputs()
