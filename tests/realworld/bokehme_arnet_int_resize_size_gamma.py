"""BokehMe adaptive rendering network (ARNet, neural bokeh rendering) exported with dynamic image height and
width: `forward(image, defocus, gamma)` computes `h_re = int(h // self.shuffle_rate * self.shuffle_rate)`
and resizes the input to `(h_re, w_re)` before the space-to-depth/PixelShuffle stack; the exported ONNX
model gives "wacky images" compared with PyTorch.

Source: https://github.com/JuewenPeng/BokehMe/issues/5
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {2: "height", 3: "width"}, "defocus": {2: "height", 3: "width"}}
BLIND = "domains-19"


class Space2Depth(nn.Module):
    def __init__(self, down_factor):
        super(Space2Depth, self).__init__()
        self.down_factor = down_factor

    def forward(self, x):
        n, c, h, w = x.size()
        unfolded_x = torch.nn.functional.unfold(x, self.down_factor, stride=self.down_factor)
        return unfolded_x.view(n, c * self.down_factor ** 2, h // self.down_factor, w // self.down_factor)


def conv_bn_activation(in_channels, out_channels, kernel_size, stride, padding, use_bn, activation):
    module = nn.Sequential()
    module.add_module('conv', nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding))
    module.add_module('bn', nn.BatchNorm2d(out_channels)) if use_bn else None
    module.add_module('activation', activation) if activation else None
    return module


class ARNet(nn.Module):  # Adaptive Rendering Network
    def __init__(self, shuffle_rate=2, in_channels=5, out_channels=4, middle_channels=16, num_block=2):
        super(ARNet, self).__init__()
        self.shuffle_rate = shuffle_rate
        activation = nn.ELU(inplace=True)
        self.downsample = Space2Depth(shuffle_rate)
        self.conv0 = conv_bn_activation((in_channels - 1) * shuffle_rate ** 2 + 1, middle_channels, 3, 1, 1, False, activation)
        self.blocks = nn.ModuleList([
            nn.Sequential(conv_bn_activation(middle_channels, middle_channels, 3, 1, 1, False, activation),
                          conv_bn_activation(middle_channels, middle_channels, 3, 1, 1, False, activation))
            for _ in range(num_block)])
        self.conv1 = conv_bn_activation(middle_channels, out_channels * shuffle_rate ** 2, 3, 1, 1, False, None)
        self.upsample = nn.PixelShuffle(shuffle_rate)

    def forward(self, image, defocus, gamma):
        _, _, h, w = image.shape
        h_re = int(h // self.shuffle_rate * self.shuffle_rate)
        w_re = int(w // self.shuffle_rate * self.shuffle_rate)
        x = torch.cat((image, defocus), dim=1)
        x = F.interpolate(x, size=(h_re, w_re), mode='bilinear', align_corners=True)
        x = self.downsample(x)
        gamma = torch.ones_like(x[:, :1]) * gamma
        x = torch.cat((x, gamma), dim=1)
        x = self.conv0(x)
        for i in range(len(self.blocks)):  # connect_mode == 'distinct_source'
            x = self.blocks[i](x) + x
        x = self.conv1(x)
        x = self.upsample(x)
        x = F.interpolate(x, size=(h, w), mode='bilinear', align_corners=True)

        bokeh = x[:, :-1]
        mask = torch.sigmoid(x[:, -1:])

        return bokeh, mask


def make_model():
    return ARNet().eval()


def example_inputs():
    return (torch.rand(1, 3, 48, 64), torch.randn(1, 1, 48, 64), 4)


def other_inputs():
    return [(torch.rand(1, 3, 37, 52), torch.randn(1, 1, 37, 52), 4),
            (torch.rand(1, 3, 60, 41), torch.randn(1, 1, 60, 41), 4)]


def probe_inputs():
    return other_inputs()
